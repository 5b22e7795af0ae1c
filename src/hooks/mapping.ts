/**
 * @module hooks/mapping
 * toolgate's tool names and parameters as another host's hook scripts know them (`host-tools.json`), both ways:
 * `toHost` builds the `tool_name` / `tool_input` a Claude Code or gemini-cli script reads, `fromHost` turns them
 * back. The table is checked when the module loads: a bad entry fails start-up, never a call.
 */
import { isPlainObject } from "../utils/index.js";
import TABLE from "./host-tools.json" with { type: "json" };

/** A host whose hook scripts toolgate runs unchanged. */
export type HostFormat = "claude" | "gemini";

/** One tool's entry: its name in the host, and parameter renames (toolgate's → the host's). */
export interface HostTool {
  name: string;
  fields: Readonly<Record<string, string>>;
  /** `edit_file`'s list of edits: the host's single-edit tool and the renames inside one edit. */
  edits?: { field: string; single: string; fields: Readonly<Record<string, string>> };
}

/** The checked table: host → toolgate tool → entry. */
export type HostTable = Readonly<Record<HostFormat, Readonly<Record<string, HostTool>>>>;

/** What a host's script sees of one call. */
export interface HostCall {
  name: string;
  input: Record<string, unknown>;
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
  for (const host of ["claude", "gemini"] as const) {
    const tools = (data as Record<string, unknown>)?.[host];
    if (!isPlainObject(tools)) throw new Error(`host-tools.json: "${host}" must be a table of tools`);
    const names = new Set<string>();
    out[host] = {};
    for (const [tool, raw] of Object.entries(tools)) {
      const entry = raw as Record<string, unknown>;
      const where = `${host}.${tool}`;
      if (typeof entry?.["name"] !== "string")
        throw new Error(`host-tools.json: ${where}.name must be a name`);
      const edits = entry["edits"] as Record<string, unknown> | undefined;
      const hostNames = [entry["name"], ...(edits ? [edits["single"]] : [])] as string[];
      for (const n of hostNames) {
        if (typeof n !== "string" || names.has(n))
          throw new Error(`host-tools.json: ${where}: "${n}" is taken`);
        names.add(n);
      }
      out[host][tool] = {
        name: entry["name"],
        fields: renames(entry["fields"], `${where}.fields`),
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
