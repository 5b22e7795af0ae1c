/**
 * @module policy/confirmation
 * What a person sees when a call needs approval (R7.8): tool name, description, risk and affected
 * locations, merged with the tool's own details (a diff, the command) and the policy's reason and rule.
 */

import type { ConfirmationDetails, PolicyDecision, Tool, ToolInvocation } from "../core/index.js";
import { confirmationTypeFor } from "../core/index.js";

/**
 * Builds the confirmation details for a call the policy decided to ask about. The tool's own details
 * (`shouldConfirmExecute`) are kept where they say more (diff, command, locations); the tool name, the
 * risk (the decision's, which already weighs rules and the call) and the policy's reason and rule id come
 * from the decision. If the tool's own details cannot be built, the call is still confirmed with the basics.
 * @example const details = await confirmationDetails(tool, invocation, decision, signal);
 */
export async function confirmationDetails(
  tool: Tool,
  invocation: ToolInvocation,
  decision: PolicyDecision,
  signal: AbortSignal,
): Promise<ConfirmationDetails> {
  let own: ConfirmationDetails | undefined;
  try {
    own = (await invocation.shouldConfirmExecute(signal)) || undefined;
  } catch (error) {
    if (signal.aborted) throw error;
  }
  const details: ConfirmationDetails = {
    type: tool.source?.startsWith("mcp:") ? "mcp" : confirmationTypeFor(tool.kind),
    ...own,
    toolName: tool.name,
    description: own?.description ? own.description : invocation.getDescription(),
    risk: decision.risk,
    locations: own?.locations?.length ? [...own.locations] : [...invocation.toolLocations()],
    reason: decision.reason,
  };
  if (decision.rule) details.rule = decision.rule.id;
  else delete details.rule;
  return details;
}
