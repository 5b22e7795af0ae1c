/**
 * @module policy/shell/wrapper-data
 * Loads `wrappers.json` (the plain prefix wrappers and the `git -c` keys whose value git runs as a command),
 * validating it when the module loads.
 */
import wrapperData from "./wrappers.json" with { type: "json" };

export interface PrefixWrapper {
  withArg: ReadonlySet<string>;
  assignments?: boolean;
  skip?: number;
}

/** Loads `wrappers.json`, failing at load on a malformed entry. */
function loadWrappers(data: unknown): { prefix: Record<string, PrefixWrapper>; gitKeys: string[][] } {
  const raw = data as { prefix?: Record<string, Record<string, unknown>>; gitCommandKeys?: unknown };
  const prefix: Record<string, PrefixWrapper> = {};
  for (const [name, entry] of Object.entries(raw.prefix ?? {})) {
    const { withArg = [], assignments, skip, ...rest } = entry;
    const bad = Object.keys(rest)[0];
    if (bad !== undefined) throw new Error(`wrappers.json prefix.${name}: unknown key "${bad}"`);
    if (!Array.isArray(withArg) || !withArg.every((w) => typeof w === "string" && w.startsWith("-")))
      throw new Error(`wrappers.json prefix.${name}.withArg: must be an array of options`);
    if (skip !== undefined && !Number.isInteger(skip))
      throw new Error(`wrappers.json prefix.${name}.skip: must be a number`);
    prefix[name] = {
      withArg: new Set(withArg as string[]),
      ...(assignments === true ? { assignments: true } : {}),
      ...(typeof skip === "number" ? { skip } : {}),
    };
  }
  const keys = raw.gitCommandKeys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string"))
    throw new Error("wrappers.json gitCommandKeys: must be an array of strings");
  return { prefix, gitKeys: keys.map((k: string) => k.toLowerCase().split(".")) };
}

const WRAPPERS = loadWrappers(wrapperData);
/** Wrappers whose wrapped command follows their options. */
export const PREFIX_WRAPPERS = WRAPPERS.prefix;

/** Whether a `git -c` key's value is a command git runs (`core.pager`, `diff.NAME.textconv`, ...). */
function isGitCommandKey(key: string): boolean {
  const parts = key.toLowerCase().split(".");
  return WRAPPERS.gitKeys.some(
    (pattern) =>
      (pattern.length === parts.length ||
        (pattern.length === 2 && pattern[1] === "*" && parts.length >= 2)) &&
      pattern.every((p, i) => p === "*" || p === parts[i]),
  );
}

/** The shell text a `git -c KEY=VALUE` runs, if any (`alias.x=!cmd`, `core.pager=cmd`). */
export function gitConfigScript(assignment: string): string | undefined {
  const eq = assignment.indexOf("=");
  if (eq < 0) return undefined;
  const key = assignment.slice(0, eq);
  const value = assignment.slice(eq + 1);
  if (key.toLowerCase().startsWith("alias.")) return value.startsWith("!") ? value.slice(1) : undefined;
  if (!isGitCommandKey(key)) return undefined;
  return value.startsWith("!") ? value.slice(1) : value;
}
