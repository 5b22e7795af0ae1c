/**
 * @module core/steps/decide
 * Step 3: ask the policy. A decider that throws fails closed: the call is denied with the reason. A call that
 * asks to leave the shell sandbox further than the deciding rule grants is at least `ask`, whatever the rules
 * say: leaving the sandbox is a decision the policy or a person makes, never the model alone. Then, for a call
 * the policy did not deny, the tool's own `precheck` of what it targets (a path outside the workspace): a call
 * it refuses ends here, before anyone is asked — the same answer for `call` and for `policy check`.
 */
import { resultFromThrown } from "../errors.js";
import type {
  Decider,
  DecisionRequest,
  PolicyDecision,
  SandboxGrant,
  Tool,
  ToolInvocation,
  ToolResult,
} from "../types.js";

const VALID: ReadonlySet<unknown> = new Set(["allow", "ask", "deny"]);

export async function decideCall(decider: Decider, request: DecisionRequest): Promise<PolicyDecision> {
  const decision = await askDecider(decider, request);
  const wanted = request.invocation.sandboxRequest?.();
  if (!wanted || decision.decision === "deny" || covers(decision.sandbox, wanted.level)) return decision;
  // The call's justification is the model's text: the confirmation shows it quoted, not inside this reason.
  const why = `it asks to run ${wanted.level === "off" ? "outside the sandbox" : "with network access"}, which no rule grants`;
  return { ...decision, decision: "ask", reason: `${decision.reason}; ${why}` };
}

async function askDecider(decider: Decider, request: DecisionRequest): Promise<PolicyDecision> {
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

const LEVEL: Record<SandboxGrant, number> = { network: 1, off: 2 };

/** True when `granted` lets a call go as far out of the sandbox as `wanted`. */
export function covers(granted: SandboxGrant | undefined, wanted: SandboxGrant): boolean {
  return granted !== undefined && LEVEL[granted] >= LEVEL[wanted];
}

/**
 * How far a call that got this far (allowed, or approved by a person) leaves the sandbox: the further of what the
 * deciding rule grants and what the call asked for.
 */
export function sandboxFor(decision: PolicyDecision, invocation: ToolInvocation): SandboxGrant | undefined {
  const wanted = invocation.sandboxRequest?.()?.level;
  if (!wanted) return decision.sandbox;
  return covers(decision.sandbox, wanted) ? decision.sandbox : wanted;
}

/**
 * The tool's refusal of what the call targets (the invocation's `precheck`), as an error result; undefined
 * when the tool has no precheck or it passes.
 */
export async function precheckCall(
  tool: Tool,
  invocation: ToolInvocation,
  signal: AbortSignal,
): Promise<ToolResult | undefined> {
  if (!invocation.precheck) return undefined;
  try {
    await invocation.precheck(signal);
    return undefined;
  } catch (error) {
    return resultFromThrown(error, tool.name, signal);
  }
}
