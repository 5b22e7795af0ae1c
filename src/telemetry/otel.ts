/**
 * @module telemetry/otel
 * Finds `@opentelemetry/api` once, lazily and synchronously: an optional peer dependency toolgate never
 * requires. Absent, every hook returns at once. The API keeps its registered providers on a global, so the
 * copy found here sees the tracer provider the application registered with its own copy.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";

export type { OtelApi };

let cached: typeof OtelApi | null | undefined;

/**
 * Where every copy of the API (major version 1, the peer range) keeps what was registered with it. Until a
 * tracer provider, context manager or logger is registered the API only hands out no-op spans, so nothing
 * is loaded before then: its ~45 files were a fifth of `toolgate call`'s start-up.
 */
const REGISTERED = Symbol.for("opentelemetry.js.api.1");

/** The OpenTelemetry API, or null when the package is not installed or nothing is registered with it yet. */
export function otelApi(): typeof OtelApi | null {
  if (cached === undefined) {
    if ((globalThis as Record<symbol, unknown>)[REGISTERED] === undefined) return null;
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

let version: string | undefined;

/**
 * The package's version, the instrumentation scope's version: read once, from the package.json two folders
 * up (from `src/telemetry/`, `dist/telemetry/` and the bundle's `dist/bin/` alike), only once spans are made.
 */
export function tracerVersion(): string | undefined {
  if (version === undefined) {
    try {
      const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
      version = String((JSON.parse(text) as { version?: unknown }).version ?? "");
    } catch {
      version = "";
    }
  }
  return version || undefined;
}

/** toolgate's tracer: scope `toolgate`, with the package's version. */
export function tracer(otel: typeof OtelApi): OtelApi.Tracer {
  return otel.trace.getTracer(TRACER_NAME, tracerVersion());
}
