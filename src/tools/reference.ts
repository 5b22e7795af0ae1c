/**
 * @module tools/reference
 * Renders the tool reference `docs/tools.md` shows, from the tools themselves: name, description, kind, risk,
 * the arguments the policy reads as paths, commands or URLs, and every parameter of the JSON schema (type,
 * bounds, required, default). What a tool touches and when its risk rises are not in the schema: they come
 * from `reference-notes.json`, which must name every tool rendered (and nothing else), so the page is complete
 * or the test fails. `src/tools/reference.test.ts` fails when the page is stale.
 */
import type { JsonSchema, Tool } from "../core/index.js";

/** What the schema cannot say about a tool, written once per tool in `reference-notes.json`. */
export interface ToolNote {
  /** What a call reads, writes, runs or reaches. */
  touches: string;
  /** When a call's risk differs from the tool's default, if it can. */
  risk?: string;
}

/** One section of the reference: a heading, a sentence, and the names of its tools, in order. */
export interface ReferenceSection {
  title: string;
  intro: string;
  tools: string[];
}

/** `reference-notes.json`: the page's sections and a note for every tool. */
export interface ReferenceNotes {
  sections: ReferenceSection[];
  tools: Record<string, ToolNote>;
}

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (s: string) => `\`${s}\``;

/** A schema's type in words: `integer 1–20`, `string, one of "a", "b"`, `array of string`. */
function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((v) => code(JSON.stringify(v))).join(", ")}`;
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : String(schema.type ?? "any");
  if (type === "array") {
    const items = (schema.items ?? {}) as JsonSchema;
    const of = items.type === "object" ? "objects (below)" : typeOf(items);
    const min = typeof schema.minItems === "number" ? `, at least ${schema.minItems}` : "";
    return `array of ${of}${min}`;
  }
  const { minimum, maximum, minLength } = schema;
  if (typeof minimum === "number" && typeof maximum === "number") return `${type} ${minimum}–${maximum}`;
  if (typeof minimum === "number") return `${type} ≥ ${minimum}`;
  if (typeof maximum === "number") return `${type} ≤ ${maximum}`;
  if (minLength === 1) return `${type}, not empty`;
  if (typeof minLength === "number") return `${type}, at least ${minLength} characters`;
  return type;
}

/**
 * The default: the schema's `default`, else the `(default …)` the parameter's description states (most
 * tools say their default in words, for the model).
 */
function defaultOf(schema: JsonSchema): string {
  if (schema.default !== undefined) return code(JSON.stringify(schema.default));
  const said = /\(default:? ([^)]+)\)/.exec(String(schema.description ?? ""));
  return said ? said[1]! : "";
}

/** One row per parameter; the properties of an array's objects follow as `name[].property`. */
function parameterRows(schema: JsonSchema, prefix = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const description = String(property.description ?? "");
    rows.push(
      `| ${code(prefix + name)} | ${cell(typeOf(property))} | ${required.has(name) ? "yes" : ""} | ${cell(defaultOf(property))} | ${cell(description)} |`,
    );
    const items = property.items as JsonSchema | undefined;
    if (property.type === "array" && items?.type === "object")
      rows.push(...parameterRows(items, `${prefix}${name}[].`));
  }
  return rows;
}

/** The arguments the policy compares as typed values (DESIGN §6), e.g. `path` → path. */
function argKindsLine(tool: Tool): string {
  const kinds = Object.entries(tool.argKinds ?? {});
  if (kinds.length === 0) return "none (every argument is plain text to the policy)";
  return kinds.map(([name, kind]) => `${code(name)} → ${kind}`).join(", ");
}

function toolSection(tool: Tool, note: ToolNote): string {
  const risk = note.risk ? `${code(tool.risk)}; ${note.risk}` : code(tool.risk);
  const rows = parameterRows(tool.parameters);
  const table =
    rows.length === 0
      ? "No parameters."
      : ["| parameter | type | required | default | description |", "|---|---|---|---|---|", ...rows].join(
          "\n",
        );
  return [
    `### ${code(tool.name)}`,
    "",
    tool.description,
    "",
    `- **Kind** ${code(tool.kind)} · **risk** ${risk}`,
    `- **Touches** ${note.touches}`,
    `- **Policy argument kinds** ${argKindsLine(tool)}`,
    "",
    table,
  ].join("\n");
}

/**
 * The reference: a summary table of every tool, then one section per tool, grouped as the notes say.
 * Throws when a tool has no note or no section, or the notes name a tool that is not given, so a new tool
 * cannot be left undocumented and a removed one cannot linger.
 * @example toolReference(tools, notes).split("\n")[0] // "| tool | kind | risk | touches |"
 */
export function toolReference(tools: readonly Tool[], notes: ReferenceNotes): string {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const placed = notes.sections.flatMap((s) => s.tools);
  const problems = [
    ...tools.filter((t) => !notes.tools[t.name]).map((t) => `${t.name} has no note`),
    ...tools.filter((t) => !placed.includes(t.name)).map((t) => `${t.name} is in no section`),
    ...[...Object.keys(notes.tools), ...placed]
      .filter((n) => !byName.has(n))
      .map((n) => `${n} is not a tool`),
  ];
  if (problems.length > 0) throw new Error(`tool reference notes: ${[...new Set(problems)].join("; ")}`);
  const ordered = placed.map((n) => byName.get(n)!);
  const summary = [
    "| tool | kind | risk | touches |",
    "|---|---|---|---|",
    ...ordered.map(
      (t) =>
        `| [${code(t.name)}](#${t.name}) | ${t.kind} | ${t.risk} | ${cell(notes.tools[t.name]!.touches)} |`,
    ),
  ].join("\n");
  const body = notes.sections.map((s) =>
    [
      `## ${s.title}`,
      "",
      s.intro,
      "",
      ...s.tools.map((n) => `${toolSection(byName.get(n)!, notes.tools[n]!)}\n`),
    ].join("\n"),
  );
  return [summary, "", ...body].join("\n").trimEnd();
}
