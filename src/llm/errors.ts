/**
 * @module llm/errors
 * Every way a model call fails, as one {@link ModelError} with a kind (what the CLI maps to exit codes and
 * what retries look at) and a one-line message saying what happened and what to start or set: an
 * unreachable server, an unknown model, a refused key, a rate limit, a server error, a silent server, a
 * connection reset, a reply that did not finish.
 */
import type { ChatReply, ProviderKind } from "./types.js";

/** Why a model call failed. */
export type ModelErrorKind =
  /** Nothing accepted the connection (refused, unknown host). */
  | "unreachable"
  | "model_not_found"
  /** The `local` provider's runtime (node-llama-cpp) is not installed or does not load. */
  | "runtime_missing"
  /** The `local` provider's model file is not a model llama.cpp can load. */
  | "model_invalid"
  | "auth"
  | "bad_request"
  /** 429: the server asked to slow down. */
  | "rate_limited"
  /** A 5xx, or an error the server reported inside its reply. */
  | "server"
  /** No byte from the server for `timeout_ms`, before any output. */
  | "timeout"
  /** The connection was cut before any output arrived. */
  | "connection_reset"
  /** The reply started but did not finish (cut, silent, `length`, no terminal chunk); see `partial`. */
  | "incomplete"
  | "cancelled"
  /** The server answered something that is not its wire format. */
  | "bad_reply"
  /**
   * The prompt did not fit the model's context window: the server refused it (HTTP 400
   * `context_length_exceeded` and its kin), cut it silently (Ollama, seen in its token count), or the
   * embedded model had to drop part of it. `overflow` carries the numbers the server gave.
   */
  | "context_overflow";

/** Kinds that mean "start or configure something" (exit 2 in `run`), not "the model failed". */
export const SETUP_KINDS: ReadonlySet<ModelErrorKind> = new Set([
  "unreachable",
  "model_not_found",
  "auth",
  "runtime_missing",
  "model_invalid",
]);

/** A failed model call. `message` is one line meant for a person. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  /** What arrived before an `incomplete` reply ended. */
  partial?: ChatReply;
  /** The server's `Retry-After`, in ms, for `rate_limited` and 503. */
  retryAfterMs?: number;
  /** For `context_overflow`: the prompt's size and the window, in the server's tokens, as far as known. */
  overflow?: { promptTokens?: number; window?: number };

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface Where {
  provider: ProviderKind;
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  /** Never shown: a server that echoes it back must not get it into a message, a log or a transcript. */
  apiKey?: string;
}

/** The message for a server that does not answer at all. */
export function unreachableMessage(where: Where): string {
  if (where.provider === "ollama")
    return `cannot reach Ollama at ${where.baseUrl} — start it with \`ollama serve\` (or set [llm] base_url / --base-url)`;
  return `cannot reach the model server at ${where.baseUrl} — start it, or set [llm] base_url / --base-url`;
}

/** The message for a model the server does not have. */
export function modelNotFoundMessage(where: Where): string {
  if (where.provider === "ollama")
    return `model ${where.model} not found — run \`ollama pull ${where.model}\``;
  return `model ${where.model} not found at ${where.baseUrl} — check [llm] model / --model`;
}

/** Maps an HTTP error status and the server's error text to a ModelError. */
export function errorForStatus(where: Where, status: number, serverMessage: string): ModelError {
  const text = oneLine(withoutKey(serverMessage, where));
  if (status === 404 || /model .*not found|no such model|does not exist/i.test(text))
    return new ModelError("model_not_found", modelNotFoundMessage(where), status);
  if (status === 401 || status === 403) {
    const hint = where.apiKeyEnv
      ? `check the API key in $${where.apiKeyEnv}`
      : "set [llm] api_key_env to the name of the variable holding the key";
    return new ModelError(
      "auth",
      `the model server refused the request (${status}): ${text} — ${hint}`,
      status,
    );
  }
  if (status === 429)
    return new ModelError(
      "rate_limited",
      `the model server is rate-limiting requests (429): ${text}`,
      status,
    );
  if (status >= 500) return new ModelError("server", `the model server failed (${status}): ${text}`, status);
  return new ModelError("bad_request", `the model server rejected the request (${status}): ${text}`, status);
}

/** `text` with the API key (if any) written as `***`. */
export function withoutKey(text: string, where: Pick<Where, "apiKey">): string {
  return where.apiKey ? text.split(where.apiKey).join("***") : text;
}

export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The cancellation error every provider throws when the caller's signal aborts. */
export function cancelledError(): ModelError {
  return new ModelError("cancelled", "the model call was cancelled");
}
