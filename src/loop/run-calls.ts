/**
 * @module loop/run-calls
 * Runs one round's tool calls through the pipeline (`gate.execute`, with the session's scope): consecutive
 * read-only calls (read, search, think) together, everything else one at a time in the model's order.
 * Reports each call's start, streamed output and end, and records them in the transcript.
 */
import type { CallResult } from "../core/index.js";
import {
  type FlowSession,
  READ_ONLY_KINDS,
  type Recall,
  type StructuredReader,
  type ToolScope,
} from "../core/index.js";
import type { ConfirmationBroker } from "./approvals.js";
import type { Transcript } from "./transcript.js";
import type { LoopEvent, LoopGate } from "./types.js";

/** A call about to run, with the id its tool message will answer. */
export interface PendingCall {
  id: string;
  name: string;
  args: unknown;
}

/** What one round of a session's tool calls runs with. */
export interface RoundContext {
  gate: LoopGate;
  scope?: ToolScope;
  signal: AbortSignal;
  broker?: ConfirmationBroker;
  transcript?: Transcript;
  /** The session's context label: each call is decided with it, and each result joins it. */
  flow?: FlowSession;
  /** The session's model without tools, bound to a schema: what the quarantined reader reads with. */
  reader?: StructuredReader;
  /** Earlier tool results still in the session's messages, by call id (the reader's by-reference mode). */
  recall?: Recall;
  emit: (event: LoopEvent) => void;
}

/** Runs `calls`; results come back in the same order. */
export async function runCalls(calls: readonly PendingCall[], ctx: RoundContext): Promise<CallResult[]> {
  const results: CallResult[] = new Array(calls.length);
  let i = 0;
  while (i < calls.length) {
    if (!isReadOnly(ctx, calls[i]!.name)) {
      results[i] = await runOne(calls[i]!, ctx);
      i++;
      continue;
    }
    let end = i;
    while (end < calls.length && isReadOnly(ctx, calls[end]!.name)) end++;
    const group = calls.slice(i, end);
    const done = await Promise.all(group.map((call) => runOne(call, ctx)));
    done.forEach((r, k) => {
      results[i + k] = r;
    });
    i = end;
  }
  return results;
}

function isReadOnly(ctx: RoundContext, name: string): boolean {
  if (ctx.scope && !ctx.scope.tools.has(name)) return false;
  const tool = ctx.gate.registry.get(name);
  return tool !== undefined && READ_ONLY_KINDS.has(tool.kind);
}

async function runOne(call: PendingCall, ctx: RoundContext): Promise<CallResult> {
  const description = describeCall(ctx, call);
  ctx.emit({ type: "tool_start", id: call.id, name: call.name, args: call.args, description });
  ctx.transcript?.write({ type: "tool_call", id: call.id, name: call.name, args: call.args, description });
  const result = await ctx.gate.execute(
    { name: call.name, args: call.args, id: call.id },
    {
      signal: ctx.signal,
      ...(ctx.scope ? { scope: ctx.scope } : {}),
      onOutput: (chunk) => ctx.emit({ type: "tool_output", id: call.id, name: call.name, chunk }),
      // The session's broker answers this call's `ask`, with the call, its agent and its signal in hand.
      ...(ctx.broker ? { confirm: ctx.broker.confirm } : {}),
      ...(ctx.flow ? { session: ctx.flow } : {}),
      ...(ctx.reader ? { reader: ctx.reader } : {}),
      ...(ctx.recall ? { recall: ctx.recall } : {}),
    },
  );
  ctx.emit({ type: "tool_end", id: call.id, name: call.name, description, result });
  ctx.transcript?.write({
    type: "tool_result",
    id: call.id,
    name: call.name,
    decision: result.decision,
    rule: result.rule,
    risk: result.risk,
    ok: result.ok,
    error: result.error ? { type: result.error.type, message: result.error.message } : null,
    durationMs: Math.round(result.durationMs),
    content: result.llmContent,
    label: result.label,
  });
  return result;
}

/**
 * A one-line description of a call: the tool's own when the arguments build (outside the scope, the
 * name and arguments only — a tool the caller may not use does not get to describe itself).
 */
export function describeCall(
  ctx: Pick<RoundContext, "gate" | "scope">,
  call: { name: string; args: unknown },
): string {
  const fallback = `${call.name} ${shortJson(call.args)}`;
  if (ctx.scope && !ctx.scope.tools.has(call.name)) return fallback;
  const tool = ctx.gate.registry.get(call.name);
  if (!tool || !call.args || typeof call.args !== "object") return fallback;
  try {
    return tool.build(call.args as Record<string, unknown>).describe() || fallback;
  } catch {
    return fallback;
  }
}

function shortJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value ?? {}) ?? "";
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
