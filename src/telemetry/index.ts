/**
 * @module telemetry
 * OpenTelemetry for toolgate, used only when the application installed `@opentelemetry/api` and registered
 * a tracer provider: `execute_tool` spans for calls, `chat` spans for model calls, `invoke_agent` spans for
 * chat turns.
 */
export { otelApi, TRACER_NAME, tracerVersion } from "./otel.js";
export {
  ATTR,
  type ModelSpanInfo,
  recordToolSpan,
  type TurnSpanInfo,
  withModelSpan,
  withTurnSpan,
} from "./spans.js";
