/**
 * @module telemetry/spans
 * toolgate's OpenTelemetry spans, after the GenAI semantic conventions: one `execute_tool` span per tool call
 * (recorded where the call's audit record is made, its start and end the call's), one `chat` span per model
 * call, and one `invoke_agent` span per chat turn, the parent of that turn's model and tool spans. All come
 * from the instrumentation scope `toolgate` with the package's version. With no `@opentelemetry/api`
 * installed or no tracer provider registered, nothing is recorded.
 */
import type { CallResult, ToolCall, ToolScope } from "../core/index.js";
import { type OtelApi, otelApi, tracer } from "./otel.js";

type Span = OtelApi.Span;

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
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  decision: "toolgate.decision",
  rule: "toolgate.rule",
  risk: "toolgate.risk",
  outcome: "toolgate.outcome",
  agent: "toolgate.agent",
  stopReason: "toolgate.stop_reason",
  sandbox: "toolgate.sandbox",
  hooks: "toolgate.hooks",
  hookDecisions: "toolgate.hooks.decisions",
  hookFailed: "toolgate.hooks.failed",
  labelIntegrity: "toolgate.label.integrity",
  labelConfidentiality: "toolgate.label.confidentiality",
  labelSources: "toolgate.label.sources",
  labelContextIntegrity: "toolgate.label.context.integrity",
  labelContextConfidentiality: "toolgate.label.context.confidentiality",
  labelFlow: "toolgate.label.flow",
  labelSink: "toolgate.label.sink",
} as const;

/** A hook run's span event: its name, source, event, answer, and how long it took. */
export const HOOK_EVENT = "toolgate.hook";

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
    const attributes: OtelApi.Attributes = {
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
    // The result's label (levels and source tools, as the audit keeps it: never paths, URLs or excerpts),
    // and, when the context's label changed the decision, that label, the sink and the effect.
    if (result.label) {
      attributes[ATTR.labelIntegrity] = result.label.integrity;
      attributes[ATTR.labelConfidentiality] = result.label.confidentiality;
      attributes[ATTR.labelSources] = [...new Set(result.label.sources.map((s) => s.tool))];
    }
    if (result.flow) {
      attributes[ATTR.labelFlow] = result.flow.effect;
      attributes[ATTR.labelContextIntegrity] = result.flow.context.integrity;
      attributes[ATTR.labelContextConfidentiality] = result.flow.context.confidentiality;
      if (result.flow.sink) attributes[ATTR.labelSink] = result.flow.sink;
    }
    const hooks = result.hooks ?? [];
    if (hooks.length > 0) {
      // Parallel arrays, one entry per hook run in the order they were asked: which hooks, and what each said.
      attributes[ATTR.hooks] = hooks.map((h) => h.hook);
      attributes[ATTR.hookDecisions] = hooks.map((h) => (h.failure ? "failed" : (h.decision ?? "none")));
      attributes[ATTR.hookFailed] = hooks.some((h) => h.failure !== undefined);
    }
    const span = tracer(otel).startSpan(`execute_tool ${result.tool}`, {
      kind: otel.SpanKind.INTERNAL,
      startTime: end - result.durationMs,
      attributes,
    });
    for (const h of hooks)
      span.addEvent(HOOK_EVENT, {
        "toolgate.hook.name": h.hook,
        "toolgate.hook.source": h.source,
        "toolgate.hook.event": h.event,
        "toolgate.hook.duration_ms": h.durationMs,
        ...(h.decision ? { "toolgate.hook.decision": h.decision } : {}),
        ...(h.reason ? { "toolgate.hook.reason": h.reason } : {}),
        ...(h.failure ? { "toolgate.hook.failure": h.failure } : {}),
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
  return tracer(otel).startActiveSpan(
    `invoke_agent ${info.agent ?? "toolgate"}`,
    { kind: otel.SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        const result = await fn();
        const stop = (result as { stopReason?: unknown } | undefined)?.stopReason;
        if (typeof stop === "string") span.setAttribute(ATTR.stopReason, stop);
        return result;
      } catch (error) {
        throw failed(otel, span, error);
      } finally {
        span.end();
      }
    },
  );
}

/** The model a `chat` span names, and what its reply says about itself. */
export interface ModelSpanInfo {
  provider: string;
  model: string;
}

/** What a model reply reports that its span records (llm's ChatReply has these). */
interface ModelReplyFacts {
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
}

/**
 * Runs `fn` (one request to a model) inside a `chat <model>` client span, a child of the turn's span: the
 * provider and model, then the reply's token counts and finish reason. A thrown error marks it failed and
 * is rethrown.
 */
export function withModelSpan<T extends ModelReplyFacts>(
  info: ModelSpanInfo,
  fn: () => Promise<T>,
): Promise<T> {
  const otel = otelApi();
  if (!otel) return fn();
  const attributes: Record<string, string> = {
    [ATTR.operation]: "chat",
    [ATTR.provider]: info.provider,
    [ATTR.model]: info.model,
  };
  return tracer(otel).startActiveSpan(
    `chat ${info.model}`,
    { kind: otel.SpanKind.CLIENT, attributes },
    async (span) => {
      try {
        const reply = await fn();
        if (reply.usage) {
          span.setAttribute(ATTR.inputTokens, reply.usage.promptTokens);
          span.setAttribute(ATTR.outputTokens, reply.usage.completionTokens);
        }
        if (reply.finishReason) span.setAttribute(ATTR.finishReasons, [reply.finishReason]);
        return reply;
      } catch (error) {
        throw failed(otel, span, error);
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed with the error that ended it; returns the error to rethrow. */
function failed(otel: typeof OtelApi, span: Span, error: unknown): unknown {
  span.recordException(error as Error);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (error as Error).message });
  return error;
}
