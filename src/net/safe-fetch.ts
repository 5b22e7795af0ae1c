/**
 * @module net/safe-fetch
 * An HTTP client that cannot be talked into reaching this machine, the local network or cloud metadata: each
 * hop's host is resolved once, every address vetted, and the socket pinned to the vetted addresses (the
 * `untrusted` mode of the one HTTP path, `net/http.ts`), the body read whole under a byte cap.
 */
import { type OnTooLarge, readCapped } from "./body.js";
import { NetError } from "./errors.js";
import { httpRequest } from "./http.js";
import type { Resolver } from "./vet.js";

export type { ResolvedAddress, Resolver } from "./vet.js";

/** How long a fetch may take, every hop, headers and body, when the caller does not say: 30 s. */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Decoded body bytes read when the caller does not say: 10 MiB. */
export const DEFAULT_FETCH_MAX_BYTES = 10 * 1024 * 1024;

/** Options of {@link safeFetch}. */
export interface SafeFetchOptions {
  /** Default `GET`. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Total time for every hop, headers and body. Default {@link DEFAULT_FETCH_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Cap on decoded body bytes. Default {@link DEFAULT_FETCH_MAX_BYTES}. */
  maxBytes?: number;
  /** What happens at the cap. Default `truncate` (the response says `truncated: true`). */
  onTooLarge?: OnTooLarge;
  /** Redirect hops followed (each re-checked); one more is a `too_many_redirects` error. Default 5. */
  maxRedirects?: number;
  /** Private or loopback hosts that may be reached anyway: `host` (any port) or `host:port`. Default none. */
  allowHosts?: readonly string[];
  /** The `Accept` header, unless `headers` sets one. Default `*\/*`. */
  accept?: string;
  /** Name resolution. Default `dns.promises.lookup(host, { all: true })`. */
  lookup?: Resolver;
}

/** A completed response (any status: callers decide what an HTTP error is; see {@link httpError}). */
export interface SafeResponse {
  status: number;
  statusText: string;
  /** The final URL, after redirects. */
  url: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  elapsedMs: number;
  /** The address the final hop connected to. */
  address: string;
  /** URLs of the hops before the final one. */
  redirects: string[];
}

/**
 * Fetches `url` safely: {@link httpRequest} in `untrusted` mode, the body read whole under a byte cap.
 * Throws {@link NetError}: `network` (bad URL, blocked host or address with the reason, DNS failure, refused
 * connection, too many redirects), `timeout` (with `elapsedMs`), `cancelled`.
 * @example
 * const res = await safeFetch("https://example.com/", { signal, timeoutMs: 10_000, maxBytes: 1 << 20 });
 * if (res.status >= 400) throw httpError(res);
 */
export async function safeFetch(url: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const { maxBytes, onTooLarge, ...request } = options;
  const res = await httpRequest(url, {
    ...request,
    mode: "untrusted",
    timeoutMs: options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
  });
  try {
    const cap = maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
    const read = await readCapped(res.chunks(), res, cap, onTooLarge ?? "truncate");
    return {
      status: res.status,
      statusText: res.statusText,
      url: res.url,
      headers: res.headers,
      body: read.body,
      truncated: read.truncated,
      elapsedMs: res.elapsedMs(),
      address: res.address,
      redirects: res.redirects,
    };
  } finally {
    res.close();
  }
}

/** A `http_error` NetError for a response with an error status. */
export function httpError(res: Pick<SafeResponse, "status" | "statusText" | "url" | "elapsedMs">): NetError {
  const text = res.statusText ? ` ${res.statusText}` : "";
  return new NetError("http_error", `HTTP ${res.status}${text} fetching ${res.url}`, {
    url: res.url,
    status: res.status,
    elapsedMs: res.elapsedMs,
  });
}
