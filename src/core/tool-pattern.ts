/**
 * @module core/tool-pattern
 * Tool-name patterns, one dialect for every place that names tools: policy rules' `tool` entries and agents'
 * `tools:` lists. An entry is `*` (every tool), an exact tool name, or a picomatch glob
 * (`mcp__github__*`, `mcp__{github,gitlab}__*`, `entit[a-z]es_?et`, `@(read|write)_file`). Exact names and `*`
 * never touch a regular expression; a glob keeps its literal prefix, so a sorted name list is searched only
 * in the range that can match.
 */

import { globRegex } from "../utils/index.js";
import { TOOL_NAME_PATTERN } from "./registry.js";

/** A compiled tool-name pattern: `*`, one exact name, or a glob. */
export type ToolPattern =
  | { readonly type: "any"; readonly source: string; readonly prefix: ""; test(name: string): boolean }
  | {
      readonly type: "exact";
      readonly source: string;
      /** The tool name. */
      readonly name: string;
      readonly prefix: string;
      test(name: string): boolean;
    }
  | {
      readonly type: "glob";
      readonly source: string;
      /** The characters every match starts with (the leading run of tool-name characters). */
      readonly prefix: string;
      test(name: string): boolean;
    };

/** Characters picomatch reads as syntax; an entry with none of them that is no tool name is refused. */
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;
/** Characters that are always literal in a glob: the leading run of them is a glob's fixed prefix. */
const LITERAL_RUN = /^[A-Za-z0-9_-]*/;

const cache = new Map<string, ToolPattern>();
const CACHE_LIMIT = 10_000;

/**
 * Compiles one entry (cached). Exact names compare with `===`, `*` matches everything, a glob is a
 * picomatch regular expression (case-sensitive, unbalanced brackets refused).
 * @throws Error when the entry is empty, a malformed glob, or neither a tool name nor a glob.
 * @example compileToolPattern("mcp__{github,gitlab}__*").test("mcp__gitlab__list_issues") // true
 */
export function compileToolPattern(entry: string): ToolPattern {
  let pattern = cache.get(entry);
  if (pattern === undefined) {
    pattern = compile(entry);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(entry, pattern);
  }
  return pattern;
}

function compile(entry: string): ToolPattern {
  if (entry === "*") return Object.freeze({ type: "any", source: entry, prefix: "", test: () => true });
  if (TOOL_NAME_PATTERN.test(entry)) {
    return Object.freeze({
      type: "exact",
      source: entry,
      name: entry,
      prefix: entry,
      test: (name: string) => name === entry,
    });
  }
  if (entry === "") throw new Error("tool name must not be empty");
  // Any glob syntax character makes it a glob attempt, so an unbalanced `[` is reported as a malformed glob.
  if (!GLOB_SYNTAX.test(entry)) {
    throw new Error(
      `${JSON.stringify(entry)} is neither a tool name (${TOOL_NAME_PATTERN.source}) nor a glob`,
    );
  }
  let re: RegExp;
  try {
    re = globRegex(entry);
  } catch (error) {
    throw new Error(`malformed tool glob ${JSON.stringify(entry)}: ${(error as Error).message}`);
  }
  const prefix = LITERAL_RUN.exec(entry)![0];
  return Object.freeze({ type: "glob", source: entry, prefix, test: (name: string) => re.test(name) });
}

/**
 * The names in `sorted` (code-point order) that `pattern` matches, in order. Binary search finds the range
 * sharing the pattern's literal prefix; only that range is tested.
 * @example matchSorted(compileToolPattern("mcp__github__*"), registry.names())
 */
export function matchSorted(pattern: ToolPattern, sorted: readonly string[]): string[] {
  if (pattern.type === "any") return [...sorted];
  const { prefix } = pattern;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < sorted.length; i++) {
    const name = sorted[i]!;
    if (!name.startsWith(prefix)) break;
    if (pattern.test(name)) out.push(name);
  }
  return out;
}
