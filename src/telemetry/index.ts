/**
 * @module telemetry
 * OpenTelemetry for toolgate, used only when the application installed `@opentelemetry/api` and registered
 * a tracer provider: `execute_tool` spans for calls, `invoke_agent` spans for chat turns.
 */
export { otelApi, TRACER_NAME } from "./otel.js";
export { ATTR, recordToolSpan, type TurnSpanInfo, withTurnSpan } from "./spans.js";
