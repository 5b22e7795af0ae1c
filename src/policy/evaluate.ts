/**
 * @module policy/evaluate
 * The decision, as a pure function of a compiled policy and a prepared call: no file system, clock or
 * environment. Precedence (DESIGN §6): a matching deny wins; otherwise tool-specific rules before `*` rules;
 * within a level the stricter decision wins (first in file order on a tie); no match → the default decision.
 */
import { CLEAN, type Decision, type PolicyDecision, type RiskLevel, type RuleRef } from "../core/index.js";
import { contextHolds, contextWanted } from "./flow/context-condition.js";
import type {
  CompiledCondition,
  CompiledPolicy,
  CompiledRule,
  ConditionOutcome,
  PolicyRecorder,
  PreparedCall,
} from "./model.js";
import { higherRisk, isStricter } from "./order.js";

/**
 * What the engine stores for an argument the call has but its kind's plug-in could not prepare (a text
 * argument that is an array or an object): its conditions are unknowable, never "missing", so deny and ask
 * rules on it still hold and allow rules do not.
 */
export const UNPREPARED: unique symbol = Symbol("unprepared argument");

/** Runs one condition against the call. */
function testCondition(
  condition: CompiledCondition,
  decision: Decision,
  call: PreparedCall,
): ConditionOutcome {
  // Plain property read: names that Object.prototype has (`constructor`, ...) are refused at load.
  const value = call.args[condition.arg];
  if (value === undefined) return "missing";
  if (value === UNPREPARED) return "unsupported";
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
  if (rule.context !== undefined) {
    const held = contextHolds(rule.context, call.context);
    recorder?.record({ op: "context", rule: rule.ref.id, want: contextWanted(rule.context), held });
    if (!held) {
      recorder?.record({ op: "no-match", rule: rule.ref.id });
      return undefined;
    }
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
    const asks = outcome === "ask" || typeof outcome === "object";
    const holds = outcome === true || asks || (outcome === "unsupported" && rule.decision !== "allow");
    if (!holds) {
      recorder?.record({ op: "no-match", rule: rule.ref.id });
      return undefined;
    }
    if (asks && decision === "allow") decision = "ask";
  }
  recorder?.record({ op: "match", rule: rule.ref.id, decision });
  return decision;
}

/** Why a rule's conditions raised it to ask, when a condition said (re-tested only for the chosen rule). */
function raisedBecause(rule: CompiledRule, call: PreparedCall): string | undefined {
  for (const condition of rule.conditions) {
    const outcome = testCondition(condition, rule.decision, call);
    if (typeof outcome === "object") return outcome.ask;
  }
  return undefined;
}

/** The one-line reason: `rule policy.toml#3 (tool "shell", decision allow) matched`. */
function reasonFor(rule: CompiledRule, decision: Decision, call: PreparedCall): string {
  if (decision === rule.decision) return rule.reason;
  const why = raisedBecause(rule, call);
  const by = why === undefined ? "by its conditions" : `by its conditions: ${why}`;
  return `rule ${rule.ref.id} (${rule.label}, raised to ${decision} ${by}) matched`;
}

/**
 * Decides one call. A layered policy (`CompiledPolicy.layers`) is decided by each layer on its own and the
 * strictest answer wins; on a tie, the answer of a rule over a default, then the earlier layer's.
 * @param recorder when given, receives explain events; when absent, none are built.
 * @example evaluate(policy, { tool: { name: "read_file", kind: "read" }, args: { path: "a" }, risk: "low" })
 */
export function evaluate(
  policy: CompiledPolicy,
  call: PreparedCall,
  recorder?: PolicyRecorder,
): PolicyDecision {
  if (policy.layers === undefined) return decideRules(policy, call, recorder);
  let result: PolicyDecision | undefined;
  let from = "";
  policy.layers.forEach((layer, i) => {
    recorder?.record({ op: "layer", source: layer.source, role: i === 0 ? "base" : "tightening" });
    const answer = evaluate(layer, call, recorder);
    if (result === undefined) {
      result = answer;
      from = layer.source;
      return;
    }
    // The stricter answer, with every rule matched in any layer and the higher risk of the two.
    const merged = {
      risk: higherRisk(result.risk, answer.risk),
      matched: [...(result.matched ?? []), ...(answer.matched ?? [])],
    };
    if (outranks(answer, result)) {
      result = { ...answer, ...merged };
      from = layer.source;
    } else result = { ...result, ...merged };
  });
  recorder?.record({ op: "combine", decision: result!.decision, source: from });
  return result!;
}

/** Whether `a` replaces `b` when layers are combined: stricter, or as strict and decided by a rule. */
function outranks(a: PolicyDecision, b: PolicyDecision): boolean {
  if (a.decision !== b.decision) return isStricter(a.decision, b.decision);
  return a.rule !== undefined && b.rule === undefined;
}

/** One policy's own rules and default. */
function decideRules(policy: CompiledPolicy, call: PreparedCall, recorder?: PolicyRecorder): PolicyDecision {
  // With a recorder, every candidate is visited (the linear scan) so the trace shows every rule considered
  // and those skipped for their tool kind; without one, only the rules the call's keys leave possible.
  let specificRules: readonly CompiledRule[];
  let anyRules: readonly CompiledRule[];
  if (recorder) {
    const candidates = policy.index.candidates(call.tool.name);
    specificRules = candidates.specific;
    anyRules = candidates.any;
  } else {
    const keyed = policy.index.keyedFor(call.tool.name, call.tool.kind, call.tool.argKinds);
    specificRules = keyed.specific.select(call, UNPREPARED);
    anyRules = keyed.any.select(call, UNPREPARED);
  }
  let matched: RuleRef[] | undefined;
  let ruleRisk: RiskLevel | undefined;
  let deny: CompiledRule | undefined;
  // The strictest matching rule of each level (0: tool-specific, 1: "*"); plain locals, nothing allocated.
  let specific: CompiledRule | undefined;
  let specificDecision: Decision = "allow";
  let any: CompiledRule | undefined;
  let anyDecision: Decision = "allow";
  for (let level = 0; level < 2; level++) {
    const rules = level === 0 ? specificRules : anyRules;
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
      if (level === 0) {
        if (specific === undefined || isStricter(decision, specificDecision)) {
          specific = rule;
          specificDecision = decision;
        }
      } else if (any === undefined || isStricter(decision, anyDecision)) {
        any = rule;
        anyDecision = decision;
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
  } else if (specific !== undefined) {
    chosen = specific;
    decision = specificDecision;
    why = "the strictest matching tool-specific rule";
  } else if (any !== undefined) {
    chosen = any;
    decision = anyDecision;
    why = 'the strictest matching "*" rule (no tool-specific rule matched)';
  } else {
    if (policy.defaultDecision === "allow" && call.blockers !== undefined && call.blockers.length > 0) {
      // The default allows what no rule named, but only what could be vouched for: the rest is asked.
      recorder?.record({ op: "default", decision: "ask" });
      return {
        decision: "ask",
        risk: call.risk,
        reason: `no rule matched; the default allows, but not this call: ${call.blockers.join("; ")}`,
        matched: [],
      };
    }
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
    reason: reasonFor(chosen, decision, call),
    matched: matched!,
  };
  if (chosen.message !== undefined) result.message = chosen.message;
  if (chosen.sandbox !== undefined && decision !== "deny") result.sandbox = chosen.sandbox;
  // A rule that read the context label decided: the guard leaves its answer alone (flow/guard.ts).
  if (chosen.context !== undefined) result.flow = { context: call.context ?? CLEAN, effect: "rule" };
  return result;
}
