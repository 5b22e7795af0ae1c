/**
 * @module telemetry/spans
 * toolgate's OpenTelemetry spans, after the GenAI semantic conventions: one `execute_tool` span per tool call
 * (recorded where the call's audit record is made, its start and end the call's), and one `invoke_agent`
 * span per chat turn, the parent of that turn's tool spans. With no `@opentelemetry/api` installed or no
 * tracer provider registered, nothing is recorded.
 */
import type { CallResult, ToolCall, ToolScope } from "../core/index.js";
import { otelApi, TRACER_NAME } from "./otel.js";

/** Attribute names: the GenAI conventions' where they exist, `toolgate.*` for the policy's part. */
export const ATTR = {
  operation: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  agentName: "gen_ai.agent.name",
  provider: "gen_ai.provider.name",
  model: "gen_ai.request.model",
  errorType: "error.type",
  decision: "toolgate.decision",
  rule: "toolgate.rule",
  risk: "toolgate.risk",
  outcome: "toolgate.outcome",
  agent: "toolgate.agent",
  stopReason: "toolgate.stop_reason",
  sandbox: "toolgate.sandbox",
} as const;

/**
 * Records one finished call as an `execute_tool` span (started `result.durationMs` ago, ended now), a child of
 * the active span (the chat turn's, when there is one). Never throws.
 */
export function recordToolSpan(call: ToolCall, result: CallResult, scope?: ToolScope): void {
  const otel = otelApi();
  if (!otel) return;
  try {
    const end = Date.now();
    const outcome = result.error ? result.error.type : "ok";
    const attributes: Record<string, string> = {
      [ATTR.operation]: "execute_tool",
      [ATTR.toolName]: result.tool,
      [ATTR.toolType]: "function",
      [ATTR.outcome]: outcome,
    };
    if (call.id) attributes[ATTR.toolCallId] = call.id;
    if (result.decision) attributes[ATTR.decision] = result.decision;
    if (result.rule) attributes[ATTR.rule] = result.rule;
    if (result.risk) attributes[ATTR.risk] = result.risk;
    if (scope?.agent) attributes[ATTR.agent] = scope.agent;
    if (result.sandbox) attributes[ATTR.sandbox] = result.sandbox;
    if (result.error) attributes[ATTR.errorType] = result.error.type;
    const span = otel.trace.getTracer(TRACER_NAME).startSpan(`execute_tool ${result.tool}`, {
      kind: otel.SpanKind.INTERNAL,
      startTime: end - result.durationMs,
      attributes,
    });
    if (result.error) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: result.error.message });
    span.end(end);
  } catch {
    // Tracing must never change what a call returns.
  }
}

/** What names a chat turn's span. */
export interface TurnSpanInfo {
  agent?: string;
  provider?: string;
  model?: string;
}

/**
 * Runs `fn` (one chat turn) inside an `invoke_agent` span, so the tool calls it makes become its children.
 * A result with a `stopReason` records it; a thrown error marks the span failed and is rethrown.
 */
export function withTurnSpan<T>(info: TurnSpanInfo, fn: () => Promise<T>): Promise<T> {
  const otel = otelApi();
  if (!otel) return fn();
  const attributes: Record<string, string> = {
    [ATTR.operation]: "invoke_agent",
    [ATTR.agentName]: info.agent ?? "toolgate",
  };
  if (info.provider) attributes[ATTR.provider] = info.provider;
  if (info.model) attributes[ATTR.model] = info.model;
  const tracer = otel.trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(
    `invoke_agent ${info.agent ?? "toolgate"}`,
    { kind: otel.SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        const result = await fn();
        const stop = (result as { stopReason?: unknown } | undefined)?.stopReason;
        if (typeof stop === "string") span.setAttribute(ATTR.stopReason, stop);
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
