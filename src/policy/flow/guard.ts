/**
 * @module policy/flow/guard
 * The built-in injection guard (docs/injection.md), applied after the rules when the context's label is not
 * clean: a call that sends data out after untrusted content is at least `ask`; with private data in the
 * context too it is `deny` — unless the deciding rule read the context (`when.context`) and allowed it, which
 * is the one explicit way to say "this is fine". A context that is only private (the user's own secrets,
 * read on the user's word) is not raised: the trifecta needs the untrusted part.
 */
import {
  CLEAN,
  type DecisionRequest,
  describeLabel,
  type Label,
  type PolicyDecision,
  type SandboxGrant,
} from "../../core/index.js";
import type { PolicyRecorder } from "../model.js";
import type { FlowKnowledge, SinkCall } from "./knowledge.js";

const LEVEL: Record<SandboxGrant, number> = { network: 1, off: 2 };

/** The further of the rule's grant and the call's own request: what the call would run with. */
function sandboxOf(decision: PolicyDecision, request: DecisionRequest): SandboxGrant | undefined {
  const wanted = request.invocation.sandboxRequest?.()?.level;
  const granted = decision.sandbox;
  if (!wanted) return granted;
  if (!granted) return wanted;
  return LEVEL[wanted] > LEVEL[granted] ? wanted : granted;
}

/** What the sink check reads of a call and its context (one object, no spreads: the decide step stays cheap). */
function sinkCall(
  decision: PolicyDecision,
  request: DecisionRequest,
  context: DecisionRequest["context"],
  privateContext: boolean,
): SinkCall {
  return {
    tool: request.tool,
    args: request.args,
    sandbox: sandboxOf(decision, request),
    trustedHosts: context?.trustedHosts ?? NO_HOSTS,
    links: context?.links,
    privateContext,
  };
}

const NO_HOSTS: ReadonlySet<string> = new Set();

/**
 * The decision with the guard's changes, made in place: the engine hands the guard the answer `evaluate` has
 * just built for this call alone, so nothing else holds it. A copy cost more than the rest of the guard
 * (`Object.assign` and three more fields: ~0.2 µs, measured on Node 20; the whole guard's budget is about
 * that), and Node 20's V8 takes ~10 µs for an object spread that overrides fields and adds one.
 */
function changed(
  decision: PolicyDecision,
  flow: NonNullable<PolicyDecision["flow"]>,
  to?: PolicyDecision["decision"],
  reason?: string,
  message?: string,
): PolicyDecision {
  decision.flow = flow;
  if (to === undefined || reason === undefined) return decision;
  decision.decision = to;
  decision.reason = reason;
  if (message !== undefined) decision.message = message;
  return decision;
}

/** An explain event for a call that sends data out (the label is described only for a trace). */
function note(recorder: PolicyRecorder, label: Label, sink: string, outcome: string): void {
  recorder.record({ op: "guard", context: describeLabel(label), sink, outcome });
}

/**
 * The decision after the guard. `decision` is the rules' answer, this call's own (changed in place when the
 * guard raises it); the context is `request.context`. Only an untrusted context is looked at (the engine
 * calls this for no other, but for an explain trace).
 * @example guardCall(decision, request, flow) // allow → ask for a web_fetch to a new host after a fetched page
 */
export function guardCall(
  decision: PolicyDecision,
  request: DecisionRequest,
  flow: FlowKnowledge,
  recorder?: PolicyRecorder,
): PolicyDecision {
  const context = request.context;
  const label = context?.label;
  if (label === undefined || label.integrity !== "untrusted") {
    if (recorder) explainClean(decision, request, flow, recorder);
    return decision;
  }
  if (decision.decision === "deny") {
    recorder?.record({ op: "guard", context: describeLabel(label), outcome: "deny (unchanged)" });
    return decision;
  }
  const privateContext = label.confidentiality === "private";
  // A tool that can send nothing out, whatever its arguments, costs one lookup.
  const check = flow.sinkCheck(request.tool);
  const sink = check === undefined ? undefined : check(sinkCall(decision, request, context, privateContext));
  if (sink === undefined) {
    recorder?.record({
      op: "guard",
      context: describeLabel(label),
      outcome: `${decision.decision} (unchanged)`,
    });
    return decision;
  }
  if (decision.flow?.effect === "rule" && decision.rule !== undefined) {
    if (recorder)
      note(
        recorder,
        label,
        sink,
        `${decision.decision} (rule ${decision.rule.id} decided with when.context)`,
      );
    return changed(decision, { context: label, sink, effect: "rule" });
  }
  if (privateContext) {
    if (recorder) note(recorder, label, sink, "deny");
    const reason = `the context holds untrusted content and private data, and this call sends data out (${sink}); denied by the injection guard unless a rule with when.context allows it`;
    return changed(decision, { context: label, sink, effect: "deny" }, "deny", reason, reason);
  }
  if (decision.decision === "ask") {
    if (recorder) note(recorder, label, sink, "ask");
    const reason = `${decision.reason}; the context holds untrusted content and this call sends data out (${sink})`;
    return changed(decision, { context: label, sink, effect: "ask" }, "ask", reason);
  }
  if (recorder) note(recorder, label, sink, "ask (raised from allow)");
  const reason = `${decision.reason}; raised to ask by the injection guard: the context holds untrusted content and this call sends data out (${sink})`;
  return changed(decision, { context: label, sink, effect: "ask" }, "ask", reason);
}

/**
 * For an explain trace on a context with nothing untrusted in it (a person's `toolgate policy check` has no
 * session: a clean context): the labels left the decision alone, and what they would do once untrusted
 * content were in the context — the same sink check the guard makes then.
 */
function explainClean(
  decision: PolicyDecision,
  request: DecisionRequest,
  flow: FlowKnowledge,
  recorder: PolicyRecorder,
): void {
  const label = request.context?.label ?? CLEAN;
  const context = `${describeLabel(label)}${label.sources.length === 0 ? " (nothing untrusted read)" : ""}`;
  const sink = flow.sinkOf(sinkCall(decision, request, request.context, false));
  const now = `${decision.decision} (unchanged: the guard acts only after untrusted content)`;
  if (sink === undefined) {
    recorder.record({ op: "guard", context, outcome: `${now}; unchanged whatever the context` });
    return;
  }
  const ruled = decision.flow?.effect === "rule" && decision.rule !== undefined;
  const then =
    decision.decision === "deny"
      ? "deny whatever the context"
      : ruled
        ? `${decision.decision} whatever the context (rule ${decision.rule!.id} decides with when.context)`
        : `after untrusted content: ask${decision.decision === "allow" ? " (raised from allow)" : ""}; with private data too: deny unless a rule with when.context allows it`;
  recorder.record({ op: "guard", context, sink, outcome: `${now}; ${then}` });
}
