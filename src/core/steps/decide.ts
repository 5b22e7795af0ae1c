/**
 * @module core/steps/decide
 * Step 3: ask the policy. A decider that throws fails closed: the call is denied with the reason.
 */
import type { Decider, DecisionRequest, PolicyDecision } from "../types.js";

const VALID: ReadonlySet<unknown> = new Set(["allow", "ask", "deny"]);

export async function decideCall(decider: Decider, request: DecisionRequest): Promise<PolicyDecision> {
  try {
    const decision = await decider.decide(request);
    // Only the three decisions mean anything; whatever else a decider returns must not run the call.
    if (!decision || !VALID.has(decision.decision)) {
      return {
        decision: "deny",
        risk: request.risk,
        reason: `the policy gave no valid decision (${JSON.stringify(decision?.decision)}); denied`,
      };
    }
    return decision;
  } catch (error) {
    return {
      decision: "deny",
      risk: request.risk,
      reason: `the policy could not decide (${(error as Error).message}); denied`,
    };
  }
}
