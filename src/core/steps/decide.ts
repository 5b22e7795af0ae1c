/**
 * @module core/steps/decide
 * Step 3: ask the policy. A decider that throws fails closed: the call is denied with the reason.
 */
import type { Decider, DecisionRequest, PolicyDecision } from "../types.js";

export async function decideCall(decider: Decider, request: DecisionRequest): Promise<PolicyDecision> {
  try {
    return await decider.decide(request);
  } catch (error) {
    return {
      decision: "deny",
      risk: request.risk,
      reason: `the policy could not decide (${(error as Error).message}); denied`,
    };
  }
}
