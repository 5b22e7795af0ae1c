/**
 * @module policy/load
 * Reading policies (the impure side): TOML text or a file → validated → compiled → examples checked →
 * a `CompiledPolicy`. Fails closed: any problem is a `ConfigError` naming the file, the line when known,
 * the rule and the problem; nothing is ever loaded partially or allowed implicitly.
 */

import { basename } from "node:path";
import { parse, TomlError } from "smol-toml";
import type { Decision, Tool } from "../core/index.js";
import { ConfigError } from "../core/index.js";
import { readPlainFile, whyUnread } from "../utils/index.js";
import { assemblePolicy, compilePolicy, compileRule, layeredPolicy, pluginList } from "./compile.js";
import { checkExamples } from "./examples.js";
import type { CompiledPolicy, PolicyToolInfo } from "./model.js";
import { type LineFinder, lineFinder, PolicyProblem, policyError } from "./problem.js";
import { validatePolicyObject, validateRuleObject } from "./spec.js";
import { validateAgainstTools } from "./tools-check.js";
import type { ArgKindPlugin } from "./types.js";

/** What loading needs besides the text. */
export interface LoadOptions {
  /** Plug-ins beside the built-in text one (path, command, url). Default: none. */
  plugins?: readonly ArgKindPlugin[];
  /** Roots for preparing path arguments of `match` examples. Default: `[process.cwd()]`. */
  roots?: readonly string[];
  /**
   * Known tools: examples get their kinds, and rules naming them exactly are checked with
   * `validateAgainstTools`. Default: none.
   */
  tools?: Iterable<PolicyToolInfo | Tool>;
  /** Prefix of rule ids. Default: the file name of `source` (`policy.toml#3`). */
  label?: string;
  /**
   * Check the rules' `match`/`not_match` examples (default true). Only for rules whose examples the test
   * suite already checks (the built-in default policy): checking them needs the bash grammar at start-up.
   */
  checkExamples?: boolean;
}

function toolMap(
  tools: Iterable<PolicyToolInfo | Tool> | undefined,
): Map<string, PolicyToolInfo> | undefined {
  if (tools === undefined) return undefined;
  const map = new Map<string, PolicyToolInfo>();
  for (const tool of tools) map.set(tool.name, tool);
  return map;
}

/** Wraps the steps after TOML parsing so every problem becomes one `ConfigError`. */
async function build(
  source: string,
  options: LoadOptions,
  lines: LineFinder | undefined,
  steps: () => Promise<CompiledPolicy>,
): Promise<CompiledPolicy> {
  try {
    const policy = await steps();
    if (options.tools !== undefined) validateAgainstTools(policy, options.tools);
    return policy;
  } catch (error) {
    if (error instanceof PolicyProblem) throw policyError(error, source, lines);
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${source}: ${(error as Error).message}`, source);
  }
}

/**
 * Parses and compiles policy TOML. `source` names the text in messages and rule ids.
 * @throws ConfigError `policy.toml:4: rule #2 (tool "shell"): decision must be one of "allow", "ask", "deny", got "maybe"`
 * @example const policy = await parsePolicy('[[rules]]\ntool = "read_file"\ndecision = "allow"', "policy.toml");
 */
export async function parsePolicy(
  text: string,
  source: string,
  options: LoadOptions = {},
): Promise<CompiledPolicy> {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(`${source}:${error.line}:${error.column}: invalid TOML: ${first}`, source);
    }
    throw new ConfigError(`${source}: invalid TOML: ${(error as Error).message}`, source);
  }
  const rules = (raw as { rules?: unknown }).rules;
  return compileObject(raw, source, options, lineFinder(text, Array.isArray(rules) ? rules.length : 0));
}

/**
 * Validates and compiles a policy given as data (what TOML parses to), e.g. one written in code.
 * @throws ConfigError as `parsePolicy`, without line numbers.
 */
export async function parsePolicyObject(
  raw: unknown,
  source: string,
  options: LoadOptions = {},
): Promise<CompiledPolicy> {
  return compileObject(raw, source, options, undefined);
}

async function compileObject(
  raw: unknown,
  source: string,
  options: LoadOptions,
  lines: LineFinder | undefined,
): Promise<CompiledPolicy> {
  return build(source, options, lines, async () => {
    const spec = validatePolicyObject(raw);
    const plugins = pluginList(options.plugins);
    const label = options.label ?? basename(source);
    const policy = compilePolicy(spec, { source, label, plugins, lineOf: (i) => lines?.inRule(i) });
    const tools = toolMap(options.tools);
    if (options.checkExamples === false) return policy;
    await checkExamples(policy.rules, {
      plugins,
      roots: options.roots ?? [process.cwd()],
      ...(tools ? { tools } : {}),
    });
    return policy;
  });
}

/**
 * Reads and compiles a policy file.
 * @throws ConfigError when the file cannot be read or is not a valid policy.
 */
export async function loadPolicyFile(path: string, options: LoadOptions = {}): Promise<CompiledPolicy> {
  let text: string;
  try {
    text = (await readPlainFile(path)).toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "ENOTPLAIN" ? whyUnread(error) : (error as Error).message;
    throw new ConfigError(`${path}: cannot read policy file: ${why}`, path);
  }
  return parsePolicy(text, path, options);
}

/** What `extendPolicy` needs. */
export interface ExtendOptions extends Omit<LoadOptions, "plugins"> {
  /** Names the added rules (`session`, a file path). */
  source: string;
  /** Replaces the default decision. Default: the base policy's. */
  default?: Decision;
}

/**
 * A new policy: `base`'s rules followed by `rules` (written like the file's `[[rules]]` tables). `base`
 * is never changed, so a shared policy (the built-in default) cannot be altered by later additions.
 * @example const session = await extendPolicy(base, [{ tool: "shell", decision: "allow" }], { source: "session" });
 */
export async function extendPolicy(
  base: CompiledPolicy,
  rules: readonly unknown[],
  options: ExtendOptions,
): Promise<CompiledPolicy> {
  // A layered policy takes the rules into its trusted base: the layers above still tighten them.
  if (base.layers !== undefined) {
    const [first, ...rest] = base.layers;
    return layeredPolicy(base.source, [await extendPolicy(first!, rules, options), ...rest]);
  }
  const label = options.label ?? basename(options.source);
  return build(options.source, options, undefined, async () => {
    const added = rules.map((raw, i) =>
      compileRule(validateRuleObject(raw, i), i, base.plugins, { source: options.source, label }),
    );
    const tools = toolMap(options.tools);
    await checkExamples(added, {
      plugins: base.plugins,
      roots: options.roots ?? [process.cwd()],
      ...(tools ? { tools } : {}),
    });
    return assemblePolicy(
      base.source,
      options.default ?? base.defaultDecision,
      [...base.rules, ...added],
      base.plugins,
    );
  });
}
