/**
 * @module policy/compile
 * Turns validated rules into compiled ones, once: tool entries classified (exact, glob, `*`), every
 * condition's operand compiled by each argument-kind plug-in that supports its operator (a bad operand fails
 * here, not at the first call), rule ids and labels fixed, everything frozen.
 */
import { type ArgKind, compileToolPattern, type Decision, type RuleRef } from "../core/index.js";
import { deepFreeze } from "../utils/index.js";
import { RuleIndex } from "./candidates.js";
import { textPlugin } from "./conditions/text.js";
import { type ContextCondition, compileContextCondition } from "./flow/context-condition.js";
import { missingKindsFor, withoutPlugin } from "./kinds.js";
import type { CompiledCondition, CompiledPolicy, CompiledRule, PolicySpec, RuleSpec } from "./model.js";
import { stricter } from "./order.js";
import { PolicyProblem } from "./problem.js";
import type { ArgKindPlugin, ConditionTest } from "./types.js";

/** The `when` key that reads the context label instead of an argument. */
const CONTEXT = "context";

/** How compiled rules are named. */
export interface CompileOptions {
  /** Where the rules came from (a path or `builtin`), kept on the policy. */
  source: string;
  /** Prefix of rule ids (`policy.toml` → `policy.toml#3`); default `source`. */
  label?: string;
  /** Plug-ins beside the built-in text one (path, command, url). */
  plugins?: readonly ArgKindPlugin[];
  /** 1-based line of each rule (by 0-based position), for rule locations. */
  lineOf?: (position: number) => number | undefined;
}

/**
 * The plug-in list a policy uses: the text plug-in first, then the given ones, one per kind.
 * @throws Error when two plug-ins claim the same kind.
 */
export function pluginList(plugins: readonly ArgKindPlugin[] = []): readonly ArgKindPlugin[] {
  const list: ArgKindPlugin[] = [textPlugin];
  for (const plugin of plugins) {
    if (plugin === textPlugin) continue;
    if (list.some((p) => p.kind === plugin.kind))
      throw new Error(`two policy plug-ins for kind "${plugin.kind}"`);
    list.push(plugin);
  }
  return Object.freeze(list);
}

/** Every operator some plug-in understands, for messages. */
function knownOperators(plugins: readonly ArgKindPlugin[]): string[] {
  const names = new Set<string>();
  for (const plugin of plugins) for (const op of Object.keys(plugin.operators)) names.add(op);
  return [...names].sort();
}

function compileConditions(
  spec: RuleSpec,
  position: number,
  plugins: readonly ArgKindPlugin[],
): CompiledCondition[] {
  const conditions: CompiledCondition[] = [];
  for (const [arg, operators] of Object.entries(spec.when ?? {})) {
    // `when.context` reads the caller's context label, not an argument (flow/context-condition.ts).
    if (arg === CONTEXT) continue;
    for (const [operator, operand] of Object.entries(operators)) {
      const supporting = plugins.filter((p) => Object.hasOwn(p.operators, operator));
      if (supporting.length === 0) {
        // An operator only a plug-in the host left out knows (`host` without the url kind) says which one.
        const missing = missingKindsFor(operator, plugins);
        throw new PolicyProblem(
          missing.length > 0
            ? `when.${arg}.${operator}: operator ${JSON.stringify(operator)} belongs to the ${missing.join(" and ")} argument kind, and ${missing.map(withoutPlugin).join("; ")}`
            : `when.${arg}: unknown operator ${JSON.stringify(operator)} (known: ${knownOperators(plugins).join(", ")})`,
          position,
          spec.tool,
          "when",
        );
      }
      // One shape for every condition's tests (see compileRule).
      const tests: Partial<Record<ArgKind, ConditionTest<unknown>>> = {
        text: undefined,
        path: undefined,
        command: undefined,
        url: undefined,
      };
      const keys: Partial<Record<ArgKind, readonly string[]>> = {};
      for (const plugin of supporting) {
        try {
          tests[plugin.kind] = plugin.operators[operator]!(operand) as ConditionTest<unknown>;
          const promised = plugin.valueKeys ? plugin.operandKeys?.(operator, operand) : undefined;
          if (promised !== undefined) keys[plugin.kind] = Object.freeze([...promised]);
        } catch (error) {
          const kind = plugin.kind === "text" ? "" : ` (${plugin.kind} arguments)`;
          throw new PolicyProblem(
            `when.${arg}.${operator}${kind}: ${(error as Error).message}`,
            position,
            spec.tool,
            "when",
          );
        }
      }
      conditions.push(
        Object.freeze({ arg, operator, tests: Object.freeze(tests), keys: Object.freeze(keys) }),
      );
    }
  }
  return conditions;
}

/** `tool "shell", decision allow` — how reasons name a rule. */
function ruleLabel(spec: RuleSpec): string {
  const tool = spec.tool.length === 1 ? JSON.stringify(spec.tool[0]) : JSON.stringify(spec.tool);
  return `tool ${tool}, decision ${spec.decision}`;
}

/**
 * Compiles one validated rule. `position` is its 0-based place in its source (ids are 1-based).
 * @throws PolicyProblem for a bad tool entry, an operator no kind supports, or an operand a kind refuses.
 */
export function compileRule(
  spec: RuleSpec,
  position: number,
  plugins: readonly ArgKindPlugin[],
  options: CompileOptions,
): CompiledRule {
  for (const entry of spec.tool) {
    try {
      compileToolPattern(entry);
    } catch (error) {
      throw new PolicyProblem((error as Error).message, position, spec.tool, "tool");
    }
  }
  const conditions = compileConditions(spec, position, plugins);
  let context: ContextCondition | undefined;
  const table = spec.when?.[CONTEXT];
  if (table !== undefined) {
    try {
      context = compileContextCondition(table);
    } catch (error) {
      throw new PolicyProblem((error as Error).message, position, spec.tool, "when");
    }
  }
  const prefix = options.label ?? options.source;
  const line = options.lineOf?.(position);
  const ref: RuleRef = Object.freeze({
    id: `${prefix}#${spec.name ?? position + 1}`,
    source: options.source,
    index: position + 1,
    ...(line !== undefined ? { line } : {}),
  });
  const label = ruleLabel(spec);
  const rule: CompiledRule = {
    ref,
    // Every rule has every property (some undefined), so all rules share one shape and the evaluator's
    // property reads stay monomorphic.
    line,
    tools: Object.freeze([...spec.tool]),
    decision: spec.decision,
    risk: spec.risk,
    message: spec.message,
    sandbox: spec.sandbox,
    kinds: spec.kind ? Object.freeze([...spec.kind]) : undefined,
    conditions: Object.freeze(conditions),
    context,
    args: Object.freeze([...new Set(conditions.map((c) => c.arg))]),
    label,
    reason: `rule ${ref.id} (${label}) matched`,
    spec: deepFreeze(structuredClone(spec)),
  };
  return Object.freeze(rule);
}

/** Assembles a frozen policy from compiled rules. */
export function assemblePolicy(
  source: string,
  defaultDecision: Decision,
  rules: readonly CompiledRule[],
  plugins: readonly ArgKindPlugin[],
): CompiledPolicy {
  const frozen = Object.freeze([...rules]);
  return Object.freeze({
    source,
    defaultDecision,
    rules: frozen,
    plugins,
    index: new RuleIndex(frozen, plugins),
  });
}

/**
 * A layered policy: each layer decides on its own and the strictest answer wins (`evaluate`). Its `rules`
 * are every layer's (listing, lint, tool checks, which arguments to prepare), its default the strictest.
 */
export function layeredPolicy(source: string, layers: readonly CompiledPolicy[]): CompiledPolicy {
  const first = layers[0];
  if (first === undefined) throw new Error("a layered policy needs at least one layer");
  const defaultDecision = layers.map((l) => l.defaultDecision).reduce(stricter);
  return Object.freeze({
    ...assemblePolicy(
      source,
      defaultDecision,
      layers.flatMap((l) => l.rules),
      first.plugins,
    ),
    layers: Object.freeze([...layers]),
  });
}

/**
 * Compiles a validated policy (no example checks: see `checkExamples`).
 * @throws PolicyProblem for the first rule that does not compile.
 */
export function compilePolicy(spec: PolicySpec, options: CompileOptions): CompiledPolicy {
  const plugins = pluginList(options.plugins);
  const names = new Map<string, number>();
  spec.rules.forEach((rule, i) => {
    if (rule.name === undefined) return;
    const first = names.get(rule.name);
    if (first !== undefined) {
      throw new PolicyProblem(
        `name ${JSON.stringify(rule.name)} is already used by rule #${first + 1}`,
        i,
        rule.tool,
        "name",
      );
    }
    names.set(rule.name, i);
  });
  const rules = spec.rules.map((rule, i) => compileRule(rule, i, plugins, options));
  return assemblePolicy(options.source, spec.default, rules, plugins);
}
