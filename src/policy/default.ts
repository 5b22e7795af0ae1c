/**
 * @module policy/default
 * The built-in default policy, used when no policy file is given: tools that only observe (kinds read,
 * search, think) are allowed, except reads of files that may hold secrets (.env, keys), which ask; everything
 * else asks; nothing is denied here (protected paths are enforced by
 * the workspace layer). Each call builds a fresh policy, so no caller can change another's.
 */

import { deepFreeze } from "./compile.js";
import type { LoadOptions } from "./load.js";
import { parsePolicyObject } from "./load.js";
import type { CompiledPolicy } from "./model.js";

/**
 * The built-in rules, written like `[[rules]]` tables. Every rule carries `match` and `not_match` examples,
 * checked each time the policy is built. To add a rule, append a table here with its examples.
 */
/**
 * Files that may hold secrets: reading them asks first, even though reads are otherwise allowed (gitignore
 * patterns on the path relative to its root). Keep in step with the workspace's `DEFAULT_READ_ASK_PATTERNS`,
 * which raises these reads' risk and keeps `read_many_files` patterns from pulling them in.
 */
const SENSITIVE_FILES: string[] = [
  ".env",
  ".env.*",
  ".envrc",
  ".netrc",
  ".npmrc",
  ".pypirc",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "id_rsa*",
  "id_ed25519*",
  "id_ecdsa*",
  "id_dsa*",
  ".ssh/",
  ".aws/credentials",
  ".gnupg/",
];

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

/**
 * Reads of files that may hold secrets ask first. These rules compare canonical paths, so they are part of
 * the built-in policy whenever a `path` plug-in is given (as `createToolgate` always does).
 */
export const SENSITIVE_READ_RULES: readonly Readonly<Record<string, unknown>>[] = deepFreeze([
  {
    name: "sensitive-read",
    tool: "read_file",
    decision: "ask",
    when: { path: { glob: SENSITIVE_FILES } },
    match: [
      { args: { path: ".env" } },
      { args: { path: "deploy/id_rsa" } },
      { args: { path: "certs/server.pem" } },
    ],
    not_match: [{ args: { path: "README.md" } }, { args: { path: "src/env.ts" } }],
  },
  {
    name: "sensitive-read-many",
    tool: "read_many_files",
    decision: "ask",
    when: { paths: { glob: SENSITIVE_FILES } },
    match: [{ args: { paths: ["README.md", ".env.local"] } }],
    not_match: [{ args: { paths: ["README.md", "src/a.ts"] } }],
  },
  {
    name: "sensitive-grep",
    tool: "grep",
    decision: "ask",
    when: { path: { glob: SENSITIVE_FILES } },
    match: [{ args: { pattern: "KEY", path: ".env" } }],
    not_match: [{ args: { pattern: "KEY", path: "src" } }],
  },
]);

/** The decision when no built-in rule matches. */
export const BUILTIN_DEFAULT_DECISION = "ask";

/**
 * Whether a sensitive-read rule applies here: a `path` plug-in is given and the rule's tool is known with a
 * `path` argument where the rule looks (without both, the rule could not compare canonical paths).
 */
function comparesPaths(
  rule: Readonly<Record<string, unknown>>,
  options: Omit<LoadOptions, "label">,
): boolean {
  if (!options.plugins?.some((p) => p.kind === "path")) return false;
  const arg = Object.keys(rule.when as Record<string, unknown>)[0];
  for (const tool of options.tools ?? []) {
    if (tool.name === rule.tool && arg !== undefined && tool.argKinds?.[arg] === "path") return true;
  }
  return false;
}

/**
 * Builds the built-in default policy, fresh on every call (examples checked each time).
 * @param options plug-ins, roots and tools, as for loading a file; with a `path` plug-in and the file tools,
 *   reads of files that may hold secrets ask ({@link SENSITIVE_READ_RULES}).
 * @example const policy = await builtinDefaultPolicy(); // read-only tools allow, everything else ask
 */
export async function builtinDefaultPolicy(
  options: Omit<LoadOptions, "label"> = {},
): Promise<CompiledPolicy> {
  const tools = options.tools ? [...options.tools] : undefined;
  const known = { ...options, ...(tools ? { tools } : {}) };
  const rules = [...BUILTIN_RULES, ...SENSITIVE_READ_RULES.filter((rule) => comparesPaths(rule, known))];
  const raw = structuredClone({ default: BUILTIN_DEFAULT_DECISION, rules });
  return parsePolicyObject(raw, "builtin", { ...known, label: "builtin" });
}
