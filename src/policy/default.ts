/**
 * @module policy/default
 * The built-in default policy, used when no policy file is given: tools that only observe (kinds read,
 * search, think) are allowed; everything else asks; nothing is denied here (protected paths are enforced by
 * the workspace layer). Each call builds a fresh policy, so no caller can change another's.
 */

import { deepFreeze } from "./compile.js";
import type { LoadOptions } from "./load.js";
import { parsePolicyObject } from "./load.js";
import type { CompiledPolicy } from "./model.js";

/**
 * The built-in rules, written like `[[rules]]` tables. Every rule carries `match` and `not_match` examples,
 * checked each time the policy is built. To add a rule (e.g. asking before reading `.env*` or key files,
 * once the path plug-in is present), append a table here with its examples.
 */
export const BUILTIN_RULES: readonly Readonly<Record<string, unknown>>[] = deepFreeze([
  {
    name: "read-only",
    tool: "*",
    kind: ["read", "search", "think"],
    decision: "allow",
    match: [
      { tool: "read_file", kind: "read", args: { path: "README.md" } },
      { tool: "grep", kind: "search", args: { pattern: "TODO" } },
      { tool: "think", kind: "think" },
    ],
    not_match: [
      { tool: "write_file", kind: "edit", args: { path: "README.md" } },
      { tool: "shell", kind: "execute", args: { command: "ls" } },
      { tool: "web_fetch", kind: "fetch", args: { url: "https://example.com" } },
    ],
  },
]);

/** The decision when no built-in rule matches. */
export const BUILTIN_DEFAULT_DECISION = "ask";

/**
 * Builds the built-in default policy, fresh on every call (examples checked each time).
 * @param options plug-ins and roots, as for loading a file; needed once built-in rules use path conditions.
 * @example const policy = await builtinDefaultPolicy(); // read-only tools allow, everything else ask
 */
export async function builtinDefaultPolicy(
  options: Omit<LoadOptions, "label"> = {},
): Promise<CompiledPolicy> {
  const raw = structuredClone({ default: BUILTIN_DEFAULT_DECISION, rules: BUILTIN_RULES });
  return parsePolicyObject(raw, "builtin", { ...options, label: "builtin" });
}
