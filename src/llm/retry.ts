/**
 * @module llm/retry
 * When a failed model request is tried again: only for a rate limit (429), a server error (5xx), a refused
 * or reset connection — and only when nothing of the reply had arrived (a retry must not repeat streamed
 * text). Waits grow exponentially with jitter; a server's `Retry-After` is honoured. Apart from those: a
 * reply cut at the token limit (`length`) after it completed its tool call(s) is asked for once more with
 * twice the reply budget, since the calls it was making are known to fit.
 */
import { cancelledError, ModelError } from "./errors.js";
import type { ChatReply, ChatRequest, LlmSettings } from "./types.js";

/** Default `[llm] max_retries`. */
export const DEFAULT_MAX_RETRIES = 2;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** A server asking for a longer wait than this gets the error instead (nobody waits minutes silently). */
const MAX_RETRY_AFTER_MS = 60_000;

/** True when `error` may be retried: nothing was received, and the failure is the server's or the network's. */
export function retryable(error: unknown): error is ModelError {
  if (!(error instanceof ModelError)) return false;
  if (error.kind === "rate_limited" || error.kind === "unreachable" || error.kind === "connection_reset")
    return true;
  return error.kind === "server" && error.status !== undefined && error.status >= 500;
}

/** The wait before retry number `attempt` (1-based): Retry-After if given, else 0.5 s · 2^(n-1) ± 50 %. */
export function retryDelay(error: ModelError, attempt: number, random = Math.random): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.round(base * (0.5 + random()));
}

/**
 * Runs `attempt` until it succeeds, fails for good, or `maxRetries` retries are spent.
 * @example const reply = await withRetries(3, request, () => once());
 */
export async function withRetries<T>(
  maxRetries: number,
  request: Pick<ChatRequest, "signal" | "onRetry">,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error) || n > maxRetries) throw error;
      const delayMs = retryDelay(error, n);
      if (delayMs > MAX_RETRY_AFTER_MS) throw error;
      request.onRetry?.({ attempt: n, delayMs, reason: error.message });
      await sleep(delayMs, request.signal);
    }
  }
}

/** The budget when neither the request, `[llm] max_tokens` nor the server's token count says one. */
const FALLBACK_BUDGET = 1024;

/**
 * The larger budget a `length`-cut reply is asked for again with, or undefined when it must stay
 * `incomplete`: only a reply whose tool calls all arrived whole (a name and an arguments object) qualifies.
 */
export function lengthRetryBudget(
  error: unknown,
  request: Pick<ChatRequest, "maxTokens">,
  settings: Pick<LlmSettings, "options">,
): number | undefined {
  if (!(error instanceof ModelError) || error.kind !== "incomplete") return undefined;
  const partial = error.partial;
  if (partial?.finishReason !== "length" || !completeCalls(partial)) return undefined;
  const used =
    request.maxTokens ?? settings.options?.maxTokens ?? partial.usage?.completionTokens ?? FALLBACK_BUDGET;
  return Math.max(1, used) * 2;
}

function completeCalls(reply: ChatReply): boolean {
  return (
    reply.toolCalls.length > 0 &&
    reply.toolCalls.every(
      (c) =>
        c.name !== "" &&
        typeof c.arguments === "object" &&
        c.arguments !== null &&
        !Array.isArray(c.arguments),
    )
  );
}

/**
 * Sends `request`; a reply cut at the token limit after complete tool calls is sent once more with a larger
 * `maxTokens` (the caller hears of it through `onRetry`). If that one fails too, its error stands.
 * @example const reply = await withLengthRetry(settings, request, (r) => once(r));
 */
export async function withLengthRetry(
  settings: Pick<LlmSettings, "options">,
  request: ChatRequest,
  send: (request: ChatRequest) => Promise<ChatReply>,
): Promise<ChatReply> {
  try {
    return await send(request);
  } catch (error) {
    const maxTokens = lengthRetryBudget(error, request, settings);
    if (maxTokens === undefined || request.signal?.aborted) throw error;
    request.onRetry?.({
      attempt: 1,
      delayMs: 0,
      reason: "the reply was cut at the token limit after a complete tool call",
      maxTokens,
    });
    return await send({ ...request, maxTokens });
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
