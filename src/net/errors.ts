/**
 * @module net/errors
 * The one error type the safe HTTP client throws. Its `type` uses the tool error names (`network`,
 * `http_error`, `timeout`, `cancelled`) so tools can turn it into a result without a mapping table.
 */

/** Why a `network` failure happened (machine-readable; the message says it in words). */
export type NetFailureReason =
  | "invalid_url"
  | "unsupported_scheme"
  | "credentials_in_url"
  | "blocked_host"
  | "blocked_address"
  | "dns"
  | "refused"
  | "reset"
  | "unreachable"
  | "tls"
  | "too_many_redirects"
  | "bad_redirect"
  | "too_large"
  | "decode"
  | "connection";

/** The kind of failure: the same names as the tool error types they become. */
export type NetErrorType = "network" | "http_error" | "timeout" | "cancelled";

/** Extra context carried by a {@link NetError}. */
export interface NetErrorDetails {
  /** The URL being fetched when it failed (the hop, after redirects). */
  url: string;
  reason?: NetFailureReason;
  /** The refused IP address, for `blocked_address`. */
  address?: string;
  status?: number;
  elapsedMs?: number;
}

/**
 * A failed safe fetch. `message` is complete and user-facing (it names the URL and the reason).
 * @example
 * try { await safeFetch(url, opts) } catch (e) { if (e instanceof NetError && e.type === "timeout") ... }
 */
export class NetError extends Error {
  override readonly name = "NetError";
  readonly url: string;
  readonly reason: NetFailureReason | undefined;
  readonly address: string | undefined;
  readonly status: number | undefined;
  readonly elapsedMs: number | undefined;

  constructor(
    readonly type: NetErrorType,
    message: string,
    details: NetErrorDetails,
  ) {
    super(message);
    this.url = details.url;
    this.reason = details.reason;
    this.address = details.address;
    this.status = details.status;
    this.elapsedMs = details.elapsedMs;
  }

  /** The details as a plain object (for `ToolError.details`), without undefined fields. */
  toDetails(): NetErrorDetails {
    const out: NetErrorDetails = { url: this.url };
    if (this.reason !== undefined) out.reason = this.reason;
    if (this.address !== undefined) out.address = this.address;
    if (this.status !== undefined) out.status = this.status;
    if (this.elapsedMs !== undefined) out.elapsedMs = this.elapsedMs;
    return out;
  }
}

/** A `network` error with a reason. */
export function networkError(
  reason: NetFailureReason,
  url: string,
  message: string,
  extra?: { address?: string },
): NetError {
  return new NetError("network", message, { url, reason, ...extra });
}

/** Maps a Node socket/DNS error code to a reason and a phrase for the message. */
export function describeSocketError(error: unknown): { reason: NetFailureReason; phrase: string } {
  const code = (error as { code?: string } | undefined)?.code ?? "";
  const detail = error instanceof Error ? error.message : String(error);
  if (code === "ECONNREFUSED") return { reason: "refused", phrase: "connection refused" };
  if (code === "ECONNRESET" || code === "EPIPE") return { reason: "reset", phrase: "connection reset" };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_FAIL" || code === "ENODATA") {
    return { reason: "dns", phrase: `DNS lookup failed (${code})` };
  }
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT") {
    return { reason: "unreachable", phrase: `host unreachable (${code})` };
  }
  if (code.startsWith("ERR_TLS") || code.includes("CERT") || code.startsWith("ERR_SSL")) {
    return { reason: "tls", phrase: `TLS error: ${detail}` };
  }
  if (code === "HPE_INVALID_CONSTANT" || code.startsWith("HPE_")) {
    return { reason: "connection", phrase: `invalid HTTP response: ${detail}` };
  }
  return { reason: "connection", phrase: code ? `${detail} (${code})` : detail };
}
