/**
 * @module policy/flow/guard
 * The built-in injection guard (docs/injection.md), applied after the rules when the context's label is not
 * clean: a call that sends data out after untrusted content is at least `ask`; with private data in the
 * context too it is `deny` — unless the deciding rule read the context (`when.context`) and allowed it, which
 * is the one explicit way to say "this is fine". A context that is only private (the user's own secrets,
 * read on the user's word) is not raised: the trifecta needs the untrusted part.
 */
import {
  type DecisionRequest,
  describeLabel,
  type PolicyDecision,
  type SandboxGrant,
} from "../../core/index.js";
import type { PolicyRecorder } from "../model.js";
import type { FlowKnowledge } from "./knowledge.js";

const LEVEL: Record<SandboxGrant, number> = { network: 1, off: 2 };

/** The further of the rule's grant and the call's own request: what the call would run with. */
function sandboxOf(decision: PolicyDecision, request: DecisionRequest): SandboxGrant | undefined {
  const wanted = request.invocation.sandboxRequest?.()?.level;
  const granted = decision.sandbox;
  if (!wanted) return granted;
  if (!granted) return wanted;
  return LEVEL[wanted] > LEVEL[granted] ? wanted : granted;
}

/**
 * The decision after the guard. `decision` is the rules' answer; the context is `request.context`.
 * @example guardCall(decision, request, flow) // allow → ask for a web_fetch to a new host after a fetched page
 */
export function guardCall(
  decision: PolicyDecision,
  request: DecisionRequest,
  flow: FlowKnowledge,
  recorder?: PolicyRecorder,
): PolicyDecision {
  const label = request.context?.label;
  if (label === undefined || label.integrity !== "untrusted" || decision.decision === "deny") return decision;
  const sink = flow.sinkOf({
    tool: request.tool,
    args: request.args,
    sandbox: sandboxOf(decision, request),
    trustedHosts: request.context?.trustedHosts ?? new Set(),
    ...(request.context?.links ? { links: request.context.links } : {}),
    privateContext: label.confidentiality === "private",
  });
  // The label is described only for an explain trace: the decide step stays cheap without one.
  const note = (outcome: string) =>
    recorder?.record({ op: "guard", context: describeLabel(label), ...(sink ? { sink } : {}), outcome });
  if (sink === undefined) {
    note(`${decision.decision} (unchanged)`);
    return decision;
  }
  if (decision.flow?.effect === "rule" && decision.rule !== undefined) {
    note(`${decision.decision} (rule ${decision.rule.id} decided with when.context)`);
    return { ...decision, flow: { context: label, sink, effect: "rule" } };
  }
  if (label.confidentiality === "private") {
    note("deny");
    const reason = `the context holds untrusted content and private data, and this call sends data out (${sink}); denied by the injection guard unless a rule with when.context allows it`;
    return {
      ...decision,
      decision: "deny",
      reason,
      message: reason,
      flow: { context: label, sink, effect: "deny" },
    };
  }
  if (decision.decision === "ask") {
    note("ask");
    return {
      ...decision,
      reason: `${decision.reason}; the context holds untrusted content and this call sends data out (${sink})`,
      flow: { context: label, sink, effect: "ask" },
    };
  }
  note("ask (raised from allow)");
  return {
    ...decision,
    decision: "ask",
    reason: `${decision.reason}; raised to ask by the injection guard: the context holds untrusted content and this call sends data out (${sink})`,
    flow: { context: label, sink, effect: "ask" },
  };
}
