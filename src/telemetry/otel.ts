/**
 * @module telemetry/otel
 * Finds `@opentelemetry/api` once, lazily and synchronously: an optional peer dependency toolgate never
 * requires. Absent, every hook returns at once. The API keeps its registered providers on a global, so the
 * copy found here sees the tracer provider the application registered with its own copy.
 */
import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";

export type { OtelApi };

let cached: typeof OtelApi | null | undefined;

/** The OpenTelemetry API, or null when the package is not installed. */
export function otelApi(): typeof OtelApi | null {
  if (cached === undefined) {
    try {
      cached = createRequire(import.meta.url)("@opentelemetry/api") as typeof OtelApi;
    } catch {
      cached = null;
    }
  }
  return cached;
}

/** The tracer toolgate's spans come from (instrumentation scope `toolgate`). */
export const TRACER_NAME = "toolgate";
