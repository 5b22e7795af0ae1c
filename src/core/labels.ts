/**
 * @module core/labels
 * Information-flow labels (docs/injection.md): every result the pipeline returns carries one — its
 * integrity (`trusted` content the user or their own files wrote, `untrusted` content anyone else could have
 * written), its confidentiality (`public`, or `private` data that must not leave), and where it came from.
 * Labels join upwards only: untrusted wins over trusted, private over public. A `FlowSession` is the join of
 * every result that entered one model's context (the context label the policy decides on).
 */
import type { Tool, ToolResult } from "./types.js";

export type Integrity = "trusted" | "untrusted";
export type Confidentiality = "public" | "private";

/** One result that made a label what it is: the tool, what it read (URL host, path, server), an excerpt. */
export interface LabelSource {
  tool: string;
  integrity: Integrity;
  confidentiality: Confidentiality;
  /** The URL, path, server or query the content came from, when the tool names one. */
  what?: string;
  /** The start of untrusted public content, for the person asked (never of private content). */
  excerpt?: string;
}

/** A result's or a context's label. */
export interface Label {
  integrity: Integrity;
  confidentiality: Confidentiality;
  /** The sources that made it untrusted or private (a result's own source, always). */
  sources: readonly LabelSource[];
}

/** The two levels a tool declares for its results (`defineTool({ label })`). */
export interface LabelLevels {
  integrity: Integrity;
  confidentiality: Confidentiality;
}

/** What a tool declares: fixed levels, or levels computed from the call's parameters and its result. */
export type LabelDeclaration =
  | LabelLevels
  | ((params: Record<string, unknown>, result: ToolResult) => LabelLevels & { what?: string });

/** What the pipeline's labeler is given for each result that came from running a tool. */
export interface LabelInput {
  tool: Tool;
  params: Record<string, unknown>;
  result: ToolResult;
  /** How far the call left the sandbox (a shell with the network is untrusted). */
  sandbox?: "network" | "off";
}

/** Labels one result (toolgate's own labeler knows the built-in tools, MCP servers and the workspace). */
export type Labeler = (input: LabelInput) => LabelLevels & { what?: string };

/** The bottom of the order: nothing read yet, or only what the user wrote. */
export const CLEAN: Label = Object.freeze({
  integrity: "trusted",
  confidentiality: "public",
  sources: Object.freeze([]) as readonly LabelSource[],
});

/** A tool that declares nothing is untrusted and private: a missing label is the unsafe case. */
export const UNDECLARED: LabelLevels = Object.freeze({ integrity: "untrusted", confidentiality: "private" });

/** How many sources a joined label keeps (the first ones: the content that turned the context). */
export const MAX_SOURCES = 12;
const EXCERPT_CHARS = 80;

/** True when the label is above the bottom on either axis. */
export function isTainted(label: Pick<Label, "integrity" | "confidentiality">): boolean {
  return label.integrity === "untrusted" || label.confidentiality === "private";
}

/** The least label above both (sources that raised it kept, duplicates by tool and `what` once). */
export function joinLabels(a: Label, b: Label): Label {
  if (!isTainted(b)) return a;
  if (!isTainted(a)) return { ...b, sources: b.sources.filter(isTainted).slice(0, MAX_SOURCES) };
  const sources = [...a.sources];
  for (const source of b.sources) {
    if (sources.length >= MAX_SOURCES) break;
    if (!isTainted(source)) continue;
    if (sources.some((s) => s.tool === source.tool && s.what === source.what)) continue;
    sources.push(source);
  }
  return {
    integrity: a.integrity === "untrusted" || b.integrity === "untrusted" ? "untrusted" : "trusted",
    confidentiality:
      a.confidentiality === "private" || b.confidentiality === "private" ? "private" : "public",
    sources,
  };
}

/**
 * The label of a result that came from running `tool`: the labeler's levels (toolgate's data), else what
 * the tool declared, else {@link UNDECLARED}. A labeler or declaration that throws labels closed.
 */
export function labelOf(input: LabelInput, labeler?: Labeler): Label {
  let levels: LabelLevels & { what?: string };
  try {
    levels = labeler ? labeler(input) : declared(input);
  } catch {
    levels = UNDECLARED;
  }
  const source: LabelSource = {
    tool: input.tool.name,
    integrity: levels.integrity === "trusted" ? "trusted" : "untrusted",
    confidentiality: levels.confidentiality === "public" ? "public" : "private",
    ...(levels.what ? { what: levels.what } : {}),
  };
  if (source.integrity === "untrusted" && source.confidentiality === "public")
    source.excerpt = excerpt(input.result.llmContent);
  return { integrity: source.integrity, confidentiality: source.confidentiality, sources: [source] };
}

/** A tool's own declaration, else {@link UNDECLARED}. */
export function declared(input: LabelInput): LabelLevels & { what?: string } {
  const declaration = input.tool.label;
  if (declaration === undefined) return UNDECLARED;
  return typeof declaration === "function" ? declaration(input.params, input.result) : declaration;
}

/** The label of what toolgate itself answered (a refusal, a bad argument): its own words. */
export function ownLabel(tool: string): Label {
  return {
    integrity: "trusted",
    confidentiality: "public",
    sources: [{ tool, integrity: "trusted", confidentiality: "public", what: "toolgate" }],
  };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1)}…` : flat;
}

/**
 * A label as stored with a value or passed between sessions (a memory entry's `meta.label`, a sub-agent's
 * result): the levels and the tools it came from — never paths, URLs or excerpts.
 */
export interface StoredLabel extends LabelLevels {
  sources: string[];
}

/** The label to store for content written from a context with `label` (no context: the user's own). */
export function storedLabelOf(label: Label | undefined): StoredLabel {
  const from = label ?? CLEAN;
  return {
    integrity: from.integrity,
    confidentiality: from.confidentiality,
    sources: [...new Set(from.sources.map((s) => s.tool))],
  };
}

/**
 * A stored label read back; anything that is not one (an entry written before labels were stored, a
 * tampered file) is {@link UNDECLARED}: what it holds may come from anywhere.
 */
export function readStoredLabel(value: unknown): StoredLabel {
  const v = value as Partial<StoredLabel> | null | undefined;
  const ok =
    typeof v === "object" &&
    v !== null &&
    (v.integrity === "trusted" || v.integrity === "untrusted") &&
    (v.confidentiality === "public" || v.confidentiality === "private");
  if (!ok) return { ...UNDECLARED, sources: [] };
  const sources = Array.isArray(v.sources) ? v.sources.filter((s): s is string => typeof s === "string") : [];
  return { integrity: v.integrity!, confidentiality: v.confidentiality!, sources };
}

/** The join of stored labels' levels (none: the bottom). */
export function joinStored(labels: readonly StoredLabel[]): StoredLabel {
  const sources = [...new Set(labels.flatMap((l) => l.sources))].slice(0, MAX_SOURCES);
  return {
    integrity: labels.some((l) => l.integrity === "untrusted") ? "untrusted" : "trusted",
    confidentiality: labels.some((l) => l.confidentiality === "private") ? "private" : "public",
    sources,
  };
}

/** One line for a person: `untrusted, private — web_fetch evil.example ("Ignore all…"), read_file .env`. */
export function describeLabel(label: Label): string {
  const head = `${label.integrity}, ${label.confidentiality}`;
  if (label.sources.length === 0) return head;
  const parts = label.sources.map((s) => {
    const where = s.what ? ` ${s.what}` : "";
    const quoted = s.excerpt ? ` (${JSON.stringify(s.excerpt)})` : "";
    return `${s.tool}${where} [${s.integrity}, ${s.confidentiality}]${quoted}`;
  });
  return `${head} — ${parts.join("; ")}`;
}
