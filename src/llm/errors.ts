/**
 * @module llm/errors
 * Turns whatever a provider client throws into one {@link ModelError} whose message is one clear line saying
 * what to start or set: an unreachable server, an unknown model, a missing or refused API key, a server error.
 */
import type { ProviderKind } from "./types.js";

/** Why a model call failed. */
export type ModelErrorKind =
  | "unreachable"
  | "model_not_found"
  | "auth"
  | "bad_request"
  | "server"
  | "cancelled"
  | "bad_reply";

/** A failed model call. `message` is one line meant for a person. */
export class ModelError extends Error {
  override readonly name = "ModelError";
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
  if (status >= 500) return new ModelError("server", `the model server failed (${status}): ${text}`, status);
  return new ModelError("bad_request", `the model server rejected the request (${status}): ${text}`, status);
}

/** True when `error` is a failure to connect (refused, DNS, reset before any answer). */
export function isConnectionFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let i = 0; i < 5 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)$/.test(
        code,
      )
    )
      return true;
    if (current instanceof TypeError && /fetch failed/i.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
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
