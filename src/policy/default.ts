/**
 * @module policy/default
 * The built-in default policy, used when no policy file is given: tools that only observe (kinds read,
 * search, think) are allowed, except reads of files that may hold secrets (.env, keys), which ask; everything
 * else asks; nothing is denied here (protected paths are enforced by the workspace layer). The rules are data:
 * `builtin/default.toml` and `builtin/sensitive-read.toml`, the same text `toolgate init` writes
 * ({@link builtinPolicyText}). Each call builds a fresh policy, so no caller can change another's.
 */

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { deepFreeze } from "../utils/index.js";
import type { LoadOptions } from "./load.js";
import { parsePolicyObject } from "./load.js";
import type { CompiledPolicy } from "./model.js";

/** Where the files are: beside this module (source and tsc layout), or from the bundled command (`dist/bin/`). */
const LOCATIONS = ["./builtin/", "../policy/builtin/"];

const texts = new Map<string, string>();

/** The text of one built-in policy file (read once); a missing file is a broken install, said as such. */
function builtinFile(name: string): string {
  const known = texts.get(name);
  if (known !== undefined) return known;
  for (const relative of LOCATIONS) {
    const path = fileURLToPath(new URL(relative + name, import.meta.url));
    if (!existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    texts.set(name, text);
    return text;
  }
  throw new Error(
    `toolgate's built-in policy file ${name} is missing beside ${fileURLToPath(import.meta.url)}`,
  );
}

/** What `builtin/sensitive-read.toml` writes where the list of files that may hold secrets goes. */
const SENSITIVE_FILES = '"@sensitive-files"';

const tomlList = (items: readonly string[]): string => `[${items.map((s) => JSON.stringify(s)).join(", ")}]`;

/**
 * The built-in policy as TOML, comments included: `builtin/default.toml`, then, with `sensitiveFiles`,
 * `builtin/sensitive-read.toml` with that list written out. `toolgate init` starts its file with this text.
 */
export function builtinPolicyText(sensitiveFiles?: readonly string[]): string {
  const base = builtinFile("default.toml");
  if (!sensitiveFiles) return base;
  const sensitive = builtinFile("sensitive-read.toml").replaceAll(SENSITIVE_FILES, tomlList(sensitiveFiles));
  return `${base}\n${sensitive}`;
}

const DEFAULT_FILE = parse(builtinFile("default.toml")) as {
  default: string;
  rules: Record<string, unknown>[];
};

/**
 * The built-in rules (`builtin/default.toml`). Every rule carries `match` and `not_match` examples, checked
 * each time the policy is built. To add a rule, append a table there with its examples.
 */
export const BUILTIN_RULES: readonly Readonly<Record<string, unknown>>[] = deepFreeze(DEFAULT_FILE.rules);

/**
 * Reads of files that may hold secrets ask first: `read_file` `path`, `read_many_files` `paths` and `grep`
 * `path` matching `patterns` (gitignore-style, on the canonical root-relative path — the workspace's list,
 * so the tools and the policy agree on what is sensitive). The rules are `builtin/sensitive-read.toml`; their
 * examples assume the default list.
 */
export function sensitiveReadRules(patterns: readonly string[]): Record<string, unknown>[] {
  const text = builtinFile("sensitive-read.toml").replaceAll(SENSITIVE_FILES, tomlList(patterns));
  return (parse(text) as { rules: Record<string, unknown>[] }).rules;
}

/** The decision when no built-in rule matches (`default` in `builtin/default.toml`). */
export const BUILTIN_DEFAULT_DECISION = DEFAULT_FILE.default;

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
