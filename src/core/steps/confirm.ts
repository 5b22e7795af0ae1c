/**
 * @module core/steps/confirm
 * Step 4: for `ask`, show a person the confirmation details through the confirmer (the message bus).
 * No confirmer, no answer, a refusal, or a failing confirmer: all are a deny. Only an explicit yes runs.
 */
import { confirmationTypeFor } from "../define-tool.js";
import type {
  ConfirmationDetails,
  Confirmer,
  PolicyDecision,
  Tool,
  ToolInvocation,
  ToolScope,
} from "../types.js";

export type ConfirmOutcome = { approved: true } | { approved: false; reason: string; cancelled?: boolean };

/** Builds the details a person sees: the tool's own (diff, command) merged with the decision (R7.8). */
export async function confirmationDetailsFor(
  tool: Tool,
  invocation: ToolInvocation,
  decision: PolicyDecision,
  signal: AbortSignal,
  scope?: ToolScope,
): Promise<ConfirmationDetails> {
  const own = await invocation.shouldConfirmExecute(signal);
  const base: ConfirmationDetails = own || {
    toolName: tool.name,
    description: invocation.getDescription(),
    risk: decision.risk,
    locations: invocation.toolLocations(),
    type: confirmationTypeFor(tool.kind),
  };
  const details: ConfirmationDetails = { ...base, risk: decision.risk, reason: decision.reason };
  if (decision.rule) details.rule = decision.rule.id;
  if (scope?.agent && (scope.depth ?? 0) > 0) details.agent = scope.agent;
  return details;
}

export async function confirmCall(
  confirmer: Confirmer | undefined,
  details: ConfirmationDetails,
  signal: AbortSignal,
): Promise<ConfirmOutcome> {
  if (!confirmer)
    return { approved: false, reason: "it needs approval and no one was available to approve it" };
  try {
    const answer = await confirmer.confirm(details, signal);
    if (answer.approved === true) return { approved: true };
    return {
      approved: false,
      reason: answer.reason ? `it was not approved: ${answer.reason}` : "it was not approved",
    };
  } catch (error) {
    if (signal.aborted) return { approved: false, reason: "the confirmation was cancelled", cancelled: true };
    return { approved: false, reason: `the confirmation failed (${(error as Error).message})` };
  }
}
