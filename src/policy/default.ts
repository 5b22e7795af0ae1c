/**
 * @module policy/default
 * The built-in default policy, used when no policy file is given: tools that only observe (kinds read,
 * search, think) are allowed, except reads of files that may hold secrets (.env, keys), which ask; everything
 * else asks; nothing is denied here (protected paths are enforced by
 * the workspace layer). Each call builds a fresh policy, so no caller can change another's.
 */

import { deepFreeze } from "../utils/index.js";
import type { LoadOptions } from "./load.js";
import { parsePolicyObject } from "./load.js";
import type { CompiledPolicy } from "./model.js";

/**
 * The built-in rules, written like `[[rules]]` tables. Every rule carries `match` and `not_match` examples,
 * checked each time the policy is built. To add a rule, append a table here with its examples.
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

/**
 * Reads of files that may hold secrets ask first: `read_file` `path`, `read_many_files` `paths` and `grep`
 * `path` matching `patterns` (gitignore-style, on the canonical root-relative path — the workspace's list,
 * so the tools and the policy agree on what is sensitive). The examples assume the default list.
 */
export function sensitiveReadRules(patterns: readonly string[]): Record<string, unknown>[] {
  const glob = [...patterns];
  return [
    {
      name: "sensitive-read",
      tool: "read_file",
      decision: "ask",
      when: { path: { glob } },
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
      when: { paths: { glob } },
      match: [{ args: { paths: ["README.md", ".env.local"] } }],
      not_match: [{ args: { paths: ["README.md", "src/a.ts"] } }],
    },
    {
      name: "sensitive-grep",
      tool: "grep",
      decision: "ask",
      when: { path: { glob } },
      match: [{ args: { pattern: "KEY", path: ".env" } }],
      not_match: [{ args: { pattern: "KEY", path: "src" } }],
    },
  ];
}

/** The decision when no built-in rule matches. */
export const BUILTIN_DEFAULT_DECISION = "ask";

/** Options of {@link builtinDefaultPolicy}: as for loading a file, plus the files that may hold secrets. */
export interface BuiltinPolicyOptions extends Omit<LoadOptions, "label"> {
  /** Gitignore patterns of files whose reads ask (the workspace's `DEFAULT_READ_ASK_PATTERNS`). */
  sensitiveFiles?: readonly string[];
}

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
 *   reads of `sensitiveFiles` ask ({@link sensitiveReadRules}).
 * @example const policy = await builtinDefaultPolicy(); // read-only tools allow, everything else ask
 */
export async function builtinDefaultPolicy(options: BuiltinPolicyOptions = {}): Promise<CompiledPolicy> {
  const tools = options.tools ? [...options.tools] : undefined;
  const { sensitiveFiles: _patterns, ...load } = options;
  const known = { ...load, ...(tools ? { tools } : {}) };
  const sensitive = options.sensitiveFiles ? sensitiveReadRules(options.sensitiveFiles) : [];
  const rules = [...BUILTIN_RULES, ...sensitive.filter((rule) => comparesPaths(rule, known))];
  const raw = structuredClone({ default: BUILTIN_DEFAULT_DECISION, rules });
  return parsePolicyObject(raw, "builtin", { ...known, label: "builtin" });
}
