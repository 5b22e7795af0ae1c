/**
 * @module policy/evaluate
 * The decision, as a pure function of a compiled policy and a prepared call: no file system, clock or
 * environment. Precedence (DESIGN §6): a matching deny wins; otherwise tool-specific rules before `*` rules;
 * within a level the stricter decision wins (first in file order on a tie); no match → the default decision.
 */
import type { Decision, PolicyDecision, RiskLevel, RuleRef } from "../core/types.js";
import type {
  CompiledCondition,
  CompiledPolicy,
  CompiledRule,
  ConditionOutcome,
  PolicyRecorder,
  PreparedCall,
} from "./model.js";
import { higherRisk, isStricter } from "./order.js";

/** Runs one condition against the call. */
function testCondition(
  condition: CompiledCondition,
  decision: Decision,
  call: PreparedCall,
): ConditionOutcome {
  // Own properties only: an argument named `constructor` must not find Object.prototype's.
  const value = Object.hasOwn(call.args, condition.arg) ? call.args[condition.arg] : undefined;
  if (value === undefined) return "missing";
  const kind = call.tool.argKinds?.[condition.arg] ?? "text";
  const test = condition.tests[kind];
  if (test === undefined) return "unsupported";
  try {
    return test(value, decision);
  } catch {
    // A plug-in's test must not throw; if one does, the condition is unknowable (treated like unsupported).
    return "unsupported";
  }
}

/**
 * Whether one rule matches a call (its tool name is not checked: callers take rules from the index), and
 * with which decision: the rule's own, raised to `ask` when a condition answered `"ask"`. A missing
 * argument fails its condition. A condition the argument's kind cannot evaluate holds for deny and ask
 * rules and fails for allow rules, so an unknowable condition never loosens the outcome.
 * @returns the effective decision, or `undefined` when the rule does not match.
 */
export function matchRule(
  rule: CompiledRule,
  call: PreparedCall,
  recorder?: PolicyRecorder,
): Decision | undefined {
  if (rule.kinds !== undefined && !rule.kinds.includes(call.tool.kind)) {
    recorder?.record({ op: "skip-kind", rule: rule.ref.id, kind: call.tool.kind });
    return undefined;
  }
  let decision = rule.decision;
  for (const condition of rule.conditions) {
    const outcome = testCondition(condition, rule.decision, call);
    if (recorder) {
      const argKind = call.tool.argKinds?.[condition.arg] ?? "text";
      recorder.record({
        op: "condition",
        rule: rule.ref.id,
        arg: condition.arg,
        operator: condition.operator,
        argKind,
        outcome,
      });
    }
    const holds =
      outcome === true || outcome === "ask" || (outcome === "unsupported" && rule.decision !== "allow");
    if (!holds) {
      recorder?.record({ op: "no-match", rule: rule.ref.id });
      return undefined;
    }
    if (outcome === "ask" && decision === "allow") decision = "ask";
  }
  recorder?.record({ op: "match", rule: rule.ref.id, decision });
  return decision;
}

/** Running state of one evaluation: the best rule of one level. */
interface Best {
  rule: CompiledRule | undefined;
  decision: Decision;
}

/** The one-line reason: `rule policy.toml#3 (tool "shell", decision allow) matched`. */
function reasonFor(rule: CompiledRule, decision: Decision): string {
  const raised = decision !== rule.decision ? `, raised to ${decision} by its conditions` : "";
  return `rule ${rule.ref.id} (${rule.label}${raised}) matched`;
}

/**
 * Decides one call.
 * @param recorder when given, receives explain events; when absent, none are built.
 * @example evaluate(policy, { tool: { name: "read_file", kind: "read" }, args: { path: "a" }, risk: "low" })
 */
export function evaluate(
  policy: CompiledPolicy,
  call: PreparedCall,
  recorder?: PolicyRecorder,
): PolicyDecision {
  const candidates = policy.index.candidates(call.tool.name);
  let matched: RuleRef[] | undefined;
  let ruleRisk: RiskLevel | undefined;
  let deny: CompiledRule | undefined;
  const best: [Best, Best] = [
    { rule: undefined, decision: "allow" },
    { rule: undefined, decision: "allow" },
  ];
  const levels = [candidates.specific, candidates.any] as const;
  for (let level = 0; level < 2; level++) {
    const rules = levels[level]!;
    const top = best[level]!;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      recorder?.record({ op: "consider", rule: rule.ref.id, level: level === 0 ? "tool" : "any" });
      const decision = matchRule(rule, call, recorder);
      if (decision === undefined) continue;
      if (matched === undefined) matched = [rule.ref];
      else matched.push(rule.ref);
      if (rule.risk !== undefined)
        ruleRisk = ruleRisk === undefined ? rule.risk : higherRisk(ruleRisk, rule.risk);
      if (decision === "deny" && deny === undefined) deny = rule;
      if (top.rule === undefined || isStricter(decision, top.decision)) {
        top.rule = rule;
        top.decision = decision;
      }
    }
  }
  let chosen: CompiledRule | undefined;
  let decision: Decision;
  let why: string;
  if (deny !== undefined) {
    chosen = deny;
    decision = "deny";
    why = "a matching deny always wins";
  } else if (best[0].rule !== undefined) {
    chosen = best[0].rule;
    decision = best[0].decision;
    why = "the strictest matching tool-specific rule";
  } else if (best[1].rule !== undefined) {
    chosen = best[1].rule;
    decision = best[1].decision;
    why = 'the strictest matching "*" rule (no tool-specific rule matched)';
  } else {
    recorder?.record({ op: "default", decision: policy.defaultDecision });
    return {
      decision: policy.defaultDecision,
      risk: call.risk,
      reason: `no rule matched; default decision ${policy.defaultDecision}`,
      matched: [],
    };
  }
  recorder?.record({ op: "choose", rule: chosen.ref.id, decision, why });
  const result: PolicyDecision = {
    decision,
    risk: chosen.risk ?? ruleRisk ?? call.risk,
    rule: chosen.ref,
    reason: reasonFor(chosen, decision),
    matched: matched!,
  };
  if (chosen.message !== undefined) result.message = chosen.message;
  return result;
}
