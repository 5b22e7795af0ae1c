/**
 * @module llm/http
 * One model request over toolgate's one HTTP path (`net/http.ts`, `configured` mode), with the failures named: a server that sends no byte for `timeoutMs`
 * (before the headers or between chunks), a refused connection, a connection reset (and when), an HTTP
 * error status with the server's own error text, and the caller's cancellation. The providers read the body
 * through {@link ModelResponse.chunks}, which keeps the idle timer running.
 */

import { type HttpResponse, httpRequest, NetError } from "../net/index.js";
import {
  cancelledError,
  errorForStatus,
  ModelError,
  oneLine,
  unreachableMessage,
  withoutKey,
} from "./errors.js";
import { contextOverflowError, overflowError, overflowFacts } from "./overflow.js";
import type { LlmSettings } from "./types.js";

/** Default `[llm] timeout_ms`: no byte for two minutes fails the request. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** An open response with status 2xx. */
export interface ModelResponse {
  contentType: string;
  /**
   * The body as text pieces; throws a ModelError (`timeout`, `connection_reset`, `cancelled`) when cut.
   * Leaving the loop early releases the connection.
   */
  chunks(): AsyncGenerator<string>;
  /** Seconds since the request started, as "2.1 s". */
  elapsed(): string;
}

/** Network failures that mean nobody accepted the connection (the server is not there). */
const UNREACHABLE = new Set(["refused", "dns", "unreachable"]);

/**
 * POSTs `body` as JSON (or GETs when `body` is undefined) and returns the open response; errors are ModelErrors.
 * The server is the one the user configured, so it goes through the one HTTP path in `configured` mode (a
 * loopback server is allowed; a redirect elsewhere is vetted).
 * @example const res = await request(settings, `${settings.baseUrl}/api/chat`, { model, messages }, signal);
 */
export async function request(
  settings: LlmSettings,
  url: string,
  body: unknown,
  signal: AbortSignal,
): Promise<ModelResponse> {
  if (signal.aborted) throw cancelledError();
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const failure = (error: unknown): ModelError => {
    if (error instanceof ModelError) return error;
    if (signal.aborted) return cancelledError();
    const net = error instanceof NetError ? error : undefined;
    if (net?.type === "timeout")
      return new ModelError(
        "timeout",
        `the model server at ${settings.baseUrl} sent nothing for ${timeoutMs / 1000} s ([llm] timeout_ms)`,
      );
    if (net?.type === "cancelled") return cancelledError();
    if (net?.reason !== undefined && UNREACHABLE.has(net.reason))
      return new ModelError("unreachable", unreachableMessage(settings));
    return new ModelError(
      "connection_reset",
      `the connection to ${settings.baseUrl} was reset after ${elapsed()}`,
    );
  };
  const headers: Record<string, string> = {
    accept: "application/x-ndjson, text/event-stream, application/json",
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let response: HttpResponse;
  try {
    response = await httpRequest(url, {
      mode: "configured",
      method: body === undefined ? "GET" : "POST",
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal,
      idleMs: timeoutMs,
    });
  } catch (error) {
    throw failure(error);
  }
  const decoder = new TextDecoder();
  async function* chunks(): AsyncGenerator<string> {
    try {
      for await (const chunk of response.chunks()) {
        const text = decoder.decode(chunk, { stream: true });
        if (text) yield text;
      }
    } catch (error) {
      throw failure(error);
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  }
  if (response.status < 200 || response.status > 299) {
    let text = "";
    try {
      for await (const piece of chunks()) text += piece;
    } catch {
      // the status says enough
    }
    const said = serverErrorText(text) || response.statusText;
    const error =
      overflowError(response.status, text, oneLine(withoutKey(said, settings))) ??
      errorForStatus(settings, response.status, said);
    const retryAfter = parseRetryAfter(response.headers["retry-after"] ?? null);
    if (retryAfter !== undefined) error.retryAfterMs = retryAfter;
    throw error;
  }
  return { contentType: response.headers["content-type"] ?? "", chunks, elapsed };
}

/** The message inside an error body: Ollama `{"error": "…"}`, OpenAI `{"error": {"message": "…"}}`, or text. */
export function serverErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = parsed?.error;
    if (typeof e === "string") return e;
    if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string")
      return (e as { message: string }).message;
    if (typeof parsed?.message === "string") return parsed.message;
    if (typeof parsed?.detail === "string") return parsed.detail;
  } catch {
    // not JSON
  }
  return oneLine(body);
}

/** An error object a server put inside a 200 stream, as a ModelError. */
export function streamError(settings: LlmSettings, server: string, error: unknown): ModelError {
  const text = serverErrorText(JSON.stringify({ error }));
  // Older llama.cpp servers refused an over-long prompt inside the stream they had already started.
  const overflow = overflowFacts(JSON.stringify(error) ?? "");
  if (overflow) return contextOverflowError(overflow, oneLine(withoutKey(text, settings)));
  return new ModelError(
    "server",
    `${server} reported an error in its reply: ${oneLine(withoutKey(text, settings))}`,
  );
}

/** `Retry-After` as ms: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Splits a stream of text into lines (NDJSON) or SSE `data:` payloads. */
export async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = "";
  for await (const piece of chunks) {
    buffer += piece;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      yield line;
      nl = buffer.indexOf("\n");
    }
  }
  if (buffer.trim() !== "") yield buffer;
}

/** The whole body as one piece (a server that answered with one JSON body instead of a stream). */
export async function* wholeBody(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let text = "";
  for await (const piece of chunks) text += piece;
  yield text;
}

/** True when the server ignored `stream: true` and sent one JSON document. */
export function isWholeJson(contentType: string): boolean {
  return /^application\/json\b/i.test(contentType.trim());
}
