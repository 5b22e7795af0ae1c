/**
 * @module hooks/mapping
 * toolgate's tool names and parameters as another host's hook scripts know them (`host-tools.json`), both ways:
 * `toHost` builds the `tool_name` / `tool_input` a Claude Code, gemini-cli or Codex script reads, `fromHost`
 * turns them back. The table is checked when the module loads: a bad entry fails start-up, never a call.
 */
import { isPlainObject } from "../utils/index.js";
import TABLE from "./host-tools.json" with { type: "json" };
import { parsePatch, renderPatch } from "./patch.js";

/** A host whose hook scripts toolgate runs unchanged. */
export type HostFormat = "claude" | "gemini" | "codex";

/** Every host, in the order tables and listings show them. */
export const HOST_FORMATS: readonly HostFormat[] = ["claude", "gemini", "codex"];

/** One tool's entry: its name in the host, and parameter renames (toolgate's → the host's). */
export interface HostTool {
  name: string;
  fields: Readonly<Record<string, string>>;
  /** `edit_file`'s list of edits: the host's single-edit tool and the renames inside one edit. */
  edits?: { field: string; single: string; fields: Readonly<Record<string, string>> };
  /** More names the host's matchers know the tool by (Codex: `apply_patch` also matches `Write` and `Edit`). */
  aliases?: readonly string[];
  /** Codex: the call is shown as a patch in `tool_input.command` (hooks/patch.ts), a whole file or edits. */
  patch?: "add" | "update";
}

/** The checked table: host → toolgate tool → entry. */
export type HostTable = Readonly<Record<HostFormat, Readonly<Record<string, HostTool>>>>;

/** What a host's script sees of one call. */
export interface HostCall {
  name: string;
  input: Record<string, unknown>;
  /** More names a matcher may match (the entry's `aliases`). */
  aliases?: readonly string[];
}

function renames(value: unknown, where: string): Record<string, string> {
  if (!isPlainObject(value)) throw new Error(`host-tools.json: ${where} must be a table of renames`);
  const seen = new Set<string>();
  for (const [from, to] of Object.entries(value)) {
    if (typeof to !== "string" || to === "")
      throw new Error(`host-tools.json: ${where}.${from} must be a name`);
    // Two parameters with one host name could not be told apart on the way back.
    if (seen.has(to)) throw new Error(`host-tools.json: ${where} maps two parameters to "${to}"`);
    seen.add(to);
  }
  return value as Record<string, string>;
}

/** Checks the table's shape; throws naming the entry at fault. */
export function loadHostTable(data: unknown): HostTable {
  const out: Record<string, Record<string, HostTool>> = {};
  for (const host of HOST_FORMATS) {
    const tools = (data as Record<string, unknown>)?.[host];
    if (!isPlainObject(tools)) throw new Error(`host-tools.json: "${host}" must be a table of tools`);
    // A host name and who holds it: one tool, or one patch kind each (Codex's apply_patch: add and update).
    const names = new Map<string, string>();
    out[host] = {};
    for (const [tool, raw] of Object.entries(tools)) {
      const entry = raw as Record<string, unknown>;
      const where = `${host}.${tool}`;
      if (typeof entry?.["name"] !== "string")
        throw new Error(`host-tools.json: ${where}.name must be a name`);
      const patch = entry["patch"];
      if (patch !== undefined && patch !== "add" && patch !== "update")
        throw new Error(`host-tools.json: ${where}.patch must be "add" or "update"`);
      const aliases = entry["aliases"] ?? [];
      if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === "string" && a !== ""))
        throw new Error(`host-tools.json: ${where}.aliases must be a list of names`);
      const edits = entry["edits"] as Record<string, unknown> | undefined;
      const hostNames = [entry["name"], ...(edits ? [edits["single"]] : [])] as string[];
      const holder = patch ? `patch:${patch}` : tool;
      for (const n of hostNames) {
        const held = names.get(n);
        const shared = held?.startsWith("patch:") && patch && held !== holder;
        if (typeof n !== "string" || (held !== undefined && !shared))
          throw new Error(`host-tools.json: ${where}: "${n}" is taken`);
        names.set(n, holder);
      }
      out[host][tool] = {
        name: entry["name"],
        fields: renames(entry["fields"], `${where}.fields`),
        ...(aliases.length > 0 ? { aliases: aliases as string[] } : {}),
        ...(patch ? { patch } : {}),
        ...(edits
          ? {
              edits: {
                field: String(edits["field"]),
                single: String(edits["single"]),
                fields: renames(edits["fields"], `${where}.edits.fields`),
              },
            }
          : {}),
      };
    }
  }
  return out as HostTable;
}

export const HOST_TABLE: HostTable = loadHostTable(TABLE);

function rename(
  input: Record<string, unknown>,
  map: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[map[key] ?? key] = value;
  return out;
}

function invert(map: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([a, b]) => [b, a]));
}

/**
 * The host's view of a toolgate call.
 * @example toHost("claude", "shell", { command: "ls" }) // { name: "Bash", input: { command: "ls" } }
 */
export function toHost(
  host: HostFormat,
  tool: string,
  args: Record<string, unknown>,
  table: HostTable = HOST_TABLE,
): HostCall {
  const entry = Object.hasOwn(table[host], tool) ? table[host][tool] : undefined;
  if (!entry) return { name: tool, input: { ...args } };
  if (entry.patch) return { ...asPatch(entry.patch, args), name: entry.name, aliases: entry.aliases ?? [] };
  const input = rename(args, entry.fields);
  const { edits } = entry;
  if (!edits) return { name: entry.name, input };
  const list = args[edits.field];
  if (!Array.isArray(list)) return { name: entry.name, input };
  const mapped = list.map((e) => (isPlainObject(e) ? rename(e, edits.fields) : e));
  if (mapped.length !== 1 || !isPlainObject(mapped[0]))
    return { name: entry.name, input: { ...input, [edits.field]: mapped } };
  // One edit: the host's single-edit tool, the edit's fields lifted beside the path.
  const { [edits.field]: _, ...rest } = input;
  return { name: edits.single, input: { ...rest, ...mapped[0] } };
}

/**
 * The names a host's matchers see for a call: its tool name (for `edit_file`, the single- or multi-edit tool),
 * then its aliases. The same name {@link toHost} gives, without building the input.
 * @example hostNames("codex", "write_file", { path: "a", content: "" }) // ["apply_patch", "Write", "Edit"]
 */
export function hostNames(
  host: HostFormat,
  tool: string,
  args: Record<string, unknown>,
  table: HostTable = HOST_TABLE,
): readonly string[] {
  const entry = Object.hasOwn(table[host], tool) ? table[host][tool] : undefined;
  if (!entry) return [tool];
  const { edits } = entry;
  const list = edits ? args[edits.field] : undefined;
  const single = edits && Array.isArray(list) && list.length === 1 && isPlainObject(list[0]);
  return [single ? edits.single : entry.name, ...(entry.aliases ?? [])];
}

/**
 * toolgate's call for a host's tool name and input (the inverse of {@link toHost}).
 * @example fromHost("gemini", "run_shell_command", { command: "ls" }) // { name: "shell", input: { command: "ls" } }
 */
export function fromHost(
  host: HostFormat,
  name: string,
  input: Record<string, unknown>,
  table: HostTable = HOST_TABLE,
): HostCall {
  for (const [tool, entry] of Object.entries(table[host])) {
    if (entry.patch && name === entry.name) {
      const back = fromPatch(input);
      if (back?.kind === entry.patch) return { name: tool, input: back.args };
      continue;
    }
    const { edits } = entry;
    if (edits && name === edits.single) {
      const back = invert(edits.fields);
      const edit: Record<string, unknown> = {};
      const rest: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(input)) {
        if (Object.hasOwn(back, key)) edit[back[key]!] = value;
        else rest[key] = value;
      }
      return { name: tool, input: { ...rename(rest, invert(entry.fields)), [edits.field]: [edit] } };
    }
    if (name !== entry.name) continue;
    const args = rename(input, invert(entry.fields));
    if (edits && Array.isArray(args[edits.field])) {
      const back = invert(edits.fields);
      args[edits.field] = (args[edits.field] as unknown[]).map((e) =>
        isPlainObject(e) ? rename(e, back) : e,
      );
    }
    return { name: tool, input: args };
  }
  return { name, input: { ...input } };
}

const isText = (v: unknown): v is string => typeof v === "string";

/**
 * A write (`add`: `path`, `content`) or edits (`update`: `path`, `edits`) as Codex's patch in `command`. The
 * call's other parameters stay beside it under their own names, and an edit's fields other than its texts
 * (`expectedReplacements`) in `edit_options`, one per edit: a script reads the patch, nothing is lost.
 */
function asPatch(kind: "add" | "update", args: Record<string, unknown>): { input: Record<string, unknown> } {
  if (kind === "add") {
    const { path, content, ...rest } = args;
    if (isText(path) && isText(content))
      return { input: { command: renderPatch({ kind, path, content }), ...rest } };
  } else {
    const { path, edits, ...rest } = args;
    const list = Array.isArray(edits) ? edits : [];
    const texts = list.every((e) => isPlainObject(e) && isText(e["oldText"]) && isText(e["newText"]));
    if (isText(path) && list.length > 0 && texts) {
      const pairs = (list as { oldText: string; newText: string }[]).map(({ oldText, newText, ...more }) => ({
        edit: { oldText, newText },
        more,
      }));
      const options = pairs.map((p) => p.more);
      return {
        input: {
          command: renderPatch({ kind, path, edits: pairs.map((p) => p.edit) }),
          ...rest,
          ...(options.some((o) => Object.keys(o).length > 0) ? { edit_options: options } : {}),
        },
      };
    }
  }
  // Not a shape the patch can show (the tool's own checks refuse it): the arguments as they are.
  return { input: { ...args } };
}

/** toolgate's arguments back from a patch call's `tool_input`; undefined when `command` is not such a patch. */
function fromPatch(
  input: Record<string, unknown>,
): { kind: "add" | "update"; args: Record<string, unknown> } | undefined {
  const { command, edit_options: options, ...rest } = input;
  if (!isText(command)) return undefined;
  let view: ReturnType<typeof parsePatch>;
  try {
    view = parsePatch(command);
  } catch {
    return undefined;
  }
  if (view.kind === "add") return { kind: "add", args: { path: view.path, content: view.content, ...rest } };
  const more = Array.isArray(options) ? options : [];
  const edits = view.edits.map((e, i) => ({ ...e, ...(isPlainObject(more[i]) ? more[i] : {}) }));
  return { kind: "update", args: { path: view.path, edits, ...rest } };
}
