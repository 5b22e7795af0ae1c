/**
 * @module core/execute
 * The one pipeline every call goes through (DESIGN §1): resolve → build → decide → confirm → execute → shape.
 * Library, CLI, MCP server, agent loop and planner all call `executeCall`; nothing runs a tool another way.
 */
import { randomUUID } from "node:crypto";
import { argsDigest } from "./audit.js";
import { confirmationDetails } from "./confirmation.js";
import { errorResult } from "./errors.js";
import type { FlowSession } from "./flow-session.js";
import { type Label, type Labeler, labelOf, ownLabel } from "./labels.js";
import type { ToolRegistry } from "./registry.js";
import { asChecked, buildInvocation, withCheckedNote } from "./steps/build.js";
import { confirmCall, type OfferAlwaysRule } from "./steps/confirm.js";
import { decideCall, precheckCall, sandboxFor } from "./steps/decide.js";
import { resolveTool } from "./steps/resolve.js";
import { runInvocation } from "./steps/run.js";
import { postToolResult, shapeResult } from "./steps/shape.js";
import { DEFAULT_LIMITS, type TruncationLimits } from "./truncate.js";
import type {
  ApprovalStore,
  AuditLabel,
  AuditSink,
  Confirm,
  ConfirmationDetails,
  Confirmer,
  Decider,
  Decision,
  FlowVerdict,
  HookReport,
  OutputCallback,
  PolicyDecision,
  PostTool,
  Recall,
  RiskLevel,
  StructuredReader,
  Tool,
  ToolCall,
  ToolResult,
  ToolScope,
} from "./types.js";

/** What the pipeline is wired with. */
export interface PipelineDeps {
  registry: ToolRegistry;
  decider: Decider;
  /** Answers `ask` for calls that bring no `confirm` of their own. Without either, every `ask` is a deny. */
  confirmer?: Confirmer;
  /**
   * Where every `ask` is kept while it waits, and answered exactly once. Default: a store of its own per
   * call (nobody but the call's own `confirm` or the confirmer can answer it then).
   */
  approvals?: ApprovalStore;
  /** How long an `ask` stays pending before it expires as a deny. Default 5 minutes. */
  confirmTimeoutMs?: number;
  /**
   * The host's "approve always" offer for asks published where others answer them (an `approvals` store
   * that is `shared`: the console): used for every such ask whose call brings no `offerAlways` of its own,
   * so every front end's asks carry the same offer.
   */
  offerAlways?: OfferAlwaysRule;
  audit?: AuditSink;
  limits?: TruncationLimits;
  /** Post-tool hooks: run on each result before it is shaped (docs/hooks.md). */
  postTool?: PostTool;
  /** Labels each result a tool returned (toolgate's label data). Default: what the tool declares. */
  labeler?: Labeler;
}

/** Per-call options. */
export interface ExecuteOptions {
  signal?: AbortSignal;
  /** Streaming output for tools that support it. */
  onOutput?: OutputCallback;
  /** The caller's tool scope (an agent's resolved set). Calls outside it are "tool not found". */
  scope?: ToolScope;
  /**
   * Answers this call's `ask`, instead of the pipeline's confirmer (the gate's message bus). It receives
   * `{ callId, call, details, agent, signal }` and the pending approval record; the signal aborts when the
   * call is cancelled or the ask is settled some other way (expired, answered elsewhere), so the question
   * can be withdrawn. Its answer is recorded in the approval store; the first answer wins.
   */
  confirm?: Confirm;
  /**
   * What "approve always" would add for this call's `ask`: published with it for a shared store's console,
   * and written when the ask is answered "always" there.
   */
  offerAlways?: OfferAlwaysRule;
  /**
   * The conversation's context label (docs/injection.md): the policy decides with it, and the call's result
   * label joins it — pass the same session for every call whose result reaches the same model context.
   */
  session?: FlowSession;
  /**
   * A tool-less, schema-bound call of the caller's model, handed to the tool (the quarantined reader's,
   * docs/injection.md). The agent loop passes its own; without one that tool says it has no model.
   */
  reader?: StructuredReader;
  /**
   * Earlier tool results still in the caller's context, by call id (the quarantined reader's `result`
   * argument reads them). The agent loop passes its own.
   */
  recall?: Recall;
}

/** A ToolResult plus what the pipeline decided. */
export interface CallResult extends ToolResult {
  ok: boolean;
  tool: string;
  /** Where the content came from and what it may hold: the tool's label, or toolgate's own for a refusal. */
  label: Label;
  decision: Decision | null;
  rule: string | null;
  risk: RiskLevel | null;
  /** The policy's one-line reason, when the policy was asked. */
  reason?: string;
  /** What the hooks that ran said, pre-tool and post-tool. */
  hooks?: HookReport[];
  /** How the context's label took part in the decision, when it did (docs/injection.md). */
  flow?: FlowVerdict;
  durationMs: number;
}

/**
 * Runs one call through the whole pipeline. Never throws for anything a caller or tool did wrong.
 * @example const r = await executeCall(deps, { name: "read_file", args: { path: "README.md" } });
 */
export async function executeCall(
  deps: PipelineDeps,
  call: ToolCall,
  options: ExecuteOptions = {},
): Promise<CallResult> {
  const started = performance.now();
  const signal = options.signal ?? new AbortController().signal;
  let decision: PolicyDecision | undefined;
  let tool: Tool | undefined;
  let postReports: HookReport[] = [];
  let label = ownLabel(typeof call.name === "string" ? call.name : "");
  let end: (() => Promise<void>) | undefined;

  // A sink that cannot keep one more record (fleet mode's buffer full while Redis is away) refuses the call
  // before anything runs: a call is never run unrecorded.
  const full = deps.audit?.admit?.();
  if (full !== undefined)
    return {
      ...errorResult("execution_failed", `${String(call.name)} was not run: ${full}`),
      ok: false,
      tool: typeof call.name === "string" ? call.name : "",
      label,
      decision: null,
      rule: null,
      risk: null,
      durationMs: performance.now() - started,
    };

  const finish = async (result: ToolResult): Promise<CallResult> => {
    const shaped = shapeResult(tool, result, deps.limits ?? DEFAULT_LIMITS);
    const out: CallResult = {
      ...shaped,
      label,
      ok: !shaped.error,
      tool: typeof call.name === "string" ? call.name : "",
      decision: decision?.decision ?? null,
      rule: decision?.rule?.id ?? null,
      risk: decision?.risk ?? null,
      durationMs: performance.now() - started,
    };
    if (decision) out.reason = decision.reason;
    if (decision?.flow && decision.flow.effect !== "none") out.flow = decision.flow;
    const hooks = [...(decision?.hooks ?? []), ...postReports];
    if (hooks.length > 0) out.hooks = hooks;
    if (deps.audit) await writeAudit(deps.audit, call, out, options.scope, decision?.explain);
    options.session?.add(label, out.llmContent);
    return out;
  };

  // 1. resolve
  const resolved = resolveTool(deps.registry, call.name, options.scope);
  if (!("build" in resolved)) return finish(resolved);
  tool = resolved;

  // 2. build
  const built = buildInvocation(deps.registry.validator, tool, call.args);
  if (!("invocation" in built)) return finish(built);
  const { args, risk } = built;

  // 3. decide
  const request = {
    tool,
    invocation: built.invocation,
    args,
    risk,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.session ? { context: options.session } : {}),
  };
  decision = await decideCall(deps.decider, request);
  if (decision.decision === "deny") return finish(denied(tool.name, decision.message ?? decision.reason));
  // What runs (and what a person approves) is what the policy checked: a command's expansions written out.
  const checked = asChecked(deps.registry.validator, tool, built, decision);
  if (!("invocation" in checked)) return finish(checked);
  const { invocation } = checked;
  // The tool's own refusal of what the call targets (a path outside the workspace): before anyone is asked.
  const refused = await precheckCall(tool, invocation, signal);
  if (refused) return finish(refused);

  // 4. confirm
  if (decision.decision === "ask") {
    const sandbox = sandboxFor(decision, invocation);
    let details: ConfirmationDetails;
    try {
      details = await confirmationDetails(tool, invocation, decision, signal, {
        ...(sandbox ? { sandbox } : {}),
        ...(options.scope ? { scope: options.scope } : {}),
        ...(options.session ? { context: options.session.label } : {}),
      });
    } catch (error) {
      // Nobody can approve what cannot be shown: a failure here is a deny, never a crash or a run.
      return finish(
        denied(tool.name, `its confirmation could not be prepared (${(error as Error).message})`),
      );
    }
    const { confirmer } = deps;
    const confirm: Confirm | undefined =
      options.confirm ?? (confirmer ? (request, ask) => confirmer.confirm(request, ask) : undefined);
    const answer = await confirmCall(
      {
        ...(deps.approvals ? { approvals: deps.approvals } : {}),
        ...(confirm ? { confirm } : {}),
        by: options.confirm ? "caller" : "confirmer",
        ...offerFor(options, deps),
        ...(deps.confirmTimeoutMs === undefined ? {} : { timeoutMs: deps.confirmTimeoutMs }),
        argsDigest: argsDigest(args),
      },
      {
        callId: call.id ?? randomUUID(),
        call,
        details,
        ...(options.scope?.agent ? { agent: options.scope.agent } : {}),
        signal,
      },
    );
    if (!answer.approved) {
      if (answer.cancelled)
        return finish(errorResult("cancelled", `${tool.name} was cancelled while waiting for approval`));
      return finish(denied(tool.name, answer.reason));
    }
    // A store that tracks runs marks this approval's run started (at most once: never a second run of one
    // approval), and finished below; a worker that dies between is marked interrupted by another.
    if (answer.ask && deps.approvals?.begin) {
      try {
        end = await deps.approvals.begin(answer.ask.id);
      } catch (error) {
        return finish(denied(tool.name, `its run could not be recorded (${(error as Error).message})`));
      }
    }
  }

  // 5. execute, 6. shape
  const sandbox = sandboxFor(decision, invocation);
  const context = {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(options.session ? { context: options.session } : {}),
    ...(options.reader ? { reader: options.reader } : {}),
    ...(options.recall ? { recall: options.recall } : {}),
  };
  let ran: ToolResult;
  try {
    ran = withCheckedNote(await runInvocation(tool, invocation, signal, options.onOutput, context), decision);
  } finally {
    // A failed mark leaves the run started: another worker's claim then says interrupted, never runs it.
    await end?.().catch(() => undefined);
  }
  // What the tool returned is labelled by what it is, whatever the tool said about itself.
  label = labelOf(
    { tool, params: invocation.params, result: ran, ...(sandbox ? { sandbox } : {}) },
    deps.labeler,
  );
  if (!deps.postTool) return finish(ran);
  const after = await postToolResult(deps.postTool, {
    call,
    tool,
    args: invocation.params,
    result: ran,
    signal,
  });
  postReports = after.hooks ?? [];
  return finish(after.result);
}

/**
 * A label as the audit log keeps it: the levels and the tools it came from — like the arguments, never the
 * paths, URLs or excerpts (an exfiltration URL holds what it steals).
 */
function auditLabel(label: Label): AuditLabel {
  return {
    integrity: label.integrity,
    confidentiality: label.confidentiality,
    sources: [...new Set(label.sources.map((s) => s.tool))],
  };
}

/** The call's own "always" offer, else the host's for an ask others can see (a shared store). */
function offerFor(options: ExecuteOptions, deps: PipelineDeps): { offerAlways?: OfferAlwaysRule } {
  const offer = options.offerAlways ?? (deps.approvals?.shared ? deps.offerAlways : undefined);
  return offer ? { offerAlways: offer } : {};
}

function denied(toolName: string, reason: string): ToolResult {
  return errorResult("denied_by_policy", `${toolName} was denied: ${reason}`);
}

async function writeAudit(
  sink: AuditSink,
  call: ToolCall,
  result: CallResult,
  scope?: ToolScope,
  explain?: string[],
): Promise<void> {
  try {
    await sink.write({
      time: new Date().toISOString(),
      tool: result.tool,
      ...(call.id ? { callId: call.id } : {}),
      ...(scope?.agent ? { agent: scope.agent } : {}),
      argsDigest: argsDigest(call.args ?? {}),
      decision: result.decision,
      rule: result.rule,
      risk: result.risk,
      outcome: result.error ? result.error.type : "ok",
      durationMs: Math.round(result.durationMs * 1000) / 1000,
      ...(result.sandbox ? { sandbox: result.sandbox } : {}),
      label: auditLabel(result.label),
      ...(result.flow
        ? {
            flow: {
              effect: result.flow.effect,
              context: auditLabel(result.flow.context),
              ...(result.flow.sink ? { sink: result.flow.sink } : {}),
            },
          }
        : {}),
      ...(result.hooks
        ? {
            hooks: result.hooks.map((h) => ({
              hook: h.hook,
              event: h.event,
              ...(h.decision ? { decision: h.decision } : {}),
              ...(h.failure ? { failure: h.failure } : {}),
            })),
          }
        : {}),
      ...(explain && explain.length > 0 ? { explain } : {}),
    });
  } catch {
    // An audit sink that fails must not turn a finished call into a crash; the sink reports its own errors.
  }
}
