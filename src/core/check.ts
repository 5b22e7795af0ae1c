/**
 * @module core/check
 * The first three steps of the pipeline without running anything: resolve → build → decide (with the tool's
 * `precheck` of what the call targets, so a path outside the workspace is `path_not_allowed` here as in a
 * call). Used by `toolgate policy check` and hosts that want to know what would happen. Same steps, same
 * answers.
 */
import type { PipelineDeps } from "./execute.js";
import { buildInvocation } from "./steps/build.js";
import { decideCall, precheckCall } from "./steps/decide.js";
import { resolveTool } from "./steps/resolve.js";
import type { DecisionRequest, PolicyDecision, ToolCall, ToolError, ToolScope } from "./types.js";

export type CheckResult = { ok: true; decision: PolicyDecision } | { ok: false; error: ToolError };

/**
 * Decides a call without executing it. `decide` defaults to `deps.decider.decide` (a host may pass one that
 * records an explanation).
 */
export async function checkCall(
  deps: Pick<PipelineDeps, "registry" | "decider">,
  call: ToolCall,
  options: { scope?: ToolScope; decide?: (request: DecisionRequest) => Promise<PolicyDecision> } = {},
): Promise<CheckResult> {
  const resolved = resolveTool(deps.registry, call.name, options.scope);
  if (!("build" in resolved)) return { ok: false, error: resolved.error! };
  const built = buildInvocation(deps.registry.validator, resolved, call.args);
  if (!("invocation" in built)) return { ok: false, error: built.error! };
  const request: DecisionRequest = {
    tool: resolved,
    invocation: built.invocation,
    args: built.args,
    risk: built.risk,
    ...(options.scope ? { scope: options.scope } : {}),
  };
  const decider = options.decide ? { decide: options.decide } : deps.decider;
  const decision = await decideCall(decider, request);
  if (decision.decision !== "deny") {
    const refused = await precheckCall(resolved, built.invocation, new AbortController().signal);
    if (refused?.error) return { ok: false, error: refused.error };
  }
  return { ok: true, decision };
}
