/**
 * @module policy/order
 * The two orders the policy relies on, defined once: decisions by strictness (allow < ask < deny) and risk
 * levels by danger (low < medium < high). Everything that compares decisions or risks goes through here.
 */
import type { Decision, RiskLevel } from "../core/index.js";

/** Every decision, least strict first. */
export const DECISIONS: readonly Decision[] = Object.freeze(["allow", "ask", "deny"]);

/** Every risk level, least dangerous first. */
export const RISK_LEVELS: readonly RiskLevel[] = Object.freeze(["low", "medium", "high"]);

const DECISION_RANK: Readonly<Record<Decision, number>> = Object.freeze({ allow: 0, ask: 1, deny: 2 });
const RISK_RANK: Readonly<Record<RiskLevel, number>> = Object.freeze({ low: 0, medium: 1, high: 2 });

/** True when `value` is one of the three decisions. */
export function isDecision(value: unknown): value is Decision {
  return typeof value === "string" && Object.hasOwn(DECISION_RANK, value);
}

/** True when `value` is one of the three risk levels. */
export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === "string" && Object.hasOwn(RISK_RANK, value);
}

/**
 * The stricter of two decisions (deny > ask > allow). On a tie the first argument is returned, so callers
 * that scan rules in order keep the earliest rule.
 * @example stricter("allow", "ask") // "ask"
 */
export function stricter(a: Decision, b: Decision): Decision {
  return DECISION_RANK[b] > DECISION_RANK[a] ? b : a;
}

/** True when `a` is strictly stricter than `b`. */
export function isStricter(a: Decision, b: Decision): boolean {
  return DECISION_RANK[a] > DECISION_RANK[b];
}

/** The higher of two risk levels. */
export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return RISK_RANK[b] > RISK_RANK[a] ? b : a;
}
