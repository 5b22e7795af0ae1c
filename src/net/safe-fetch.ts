/**
 * @module net/safe-fetch
 * An HTTP client that cannot be talked into reaching this machine, the local network or cloud metadata: each
 * hop's host is resolved once, every address vetted, and the socket pinned to the vetted addresses.
 */
import type http from "node:http";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { type OnTooLarge, readBody } from "./body.js";
import { describeSocketError, NetError, networkError } from "./errors.js";
import { parseAllowHosts, type Target, toTarget } from "./target.js";
import { defaultLookup, pinnedLookup, type ResolvedAddress, type Resolver, vetTarget } from "./vet.js";

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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_UA = "Mozilla/5.0 (compatible; toolgate/0.1; +https://www.npmjs.com/package/toolgate)";
/** Headers that carry credentials; dropped when a redirect leaves the origin. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|api-?key/i;

// http and https (with tls) are loaded on the first fetch, not with every `toolgate` start-up.
const load = createRequire(import.meta.url);
const httpFor = (secure: boolean) =>
  secure ? (load("node:https") as typeof import("node:https")) : (load("node:http") as typeof http);

/**
 * Fetches `url` safely. Throws {@link NetError}: `network` (bad URL, blocked host or address with the reason,
 * DNS failure, refused connection, too many redirects), `timeout` (with `elapsedMs`), `cancelled`.
 * @example
 * const res = await safeFetch("https://example.com/", { signal, timeoutMs: 10_000, maxBytes: 1 << 20 });
 * if (res.status >= 400) throw httpError(res);
 */
export async function safeFetch(url: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const rules = parseAllowHosts(options.allowHosts ?? []);
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCancel = () => controller.abort();
  options.signal?.addEventListener("abort", onCancel, { once: true });
  let current = String(url);
  try {
    if (options.signal?.aborted) controller.abort();
    let target = toTarget(url);
    current = target.url.href;
    let method = (options.method ?? "GET").toUpperCase();
    let body = options.body;
    let headers = initialHeaders(options);
    const redirects: string[] = [];
    for (;;) {
      throwIfAborted(controller.signal);
      const resolved = await vetTarget(target, rules, options.lookup ?? defaultLookup, controller.signal);
      const res = await send(target, resolved, method, headers, body, controller.signal);
      const address = res.socket?.remoteAddress ?? resolved[0]?.address ?? "";
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode ?? 0) && location) {
        res.destroy();
        if (redirects.length >= (options.maxRedirects ?? 5)) {
          throw networkError(
            "too_many_redirects",
            current,
            `too many redirects fetching ${String(url)} (limit ${options.maxRedirects ?? 5})`,
          );
        }
        let next: URL;
        try {
          next = new URL(location, target.url);
        } catch {
          throw networkError("bad_redirect", current, `${current} redirected to an invalid URL: ${location}`);
        }
        redirects.push(current);
        const from = target.url;
        target = toTarget(next);
        current = target.url.href;
        ({ method, body, headers } = redirected(
          res.statusCode ?? 0,
          method,
          body,
          headers,
          from,
          target.url,
        ));
        continue;
      }
      const read = await readBodyAbortable(res, current, options, controller.signal);
      return {
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? "",
        url: current,
        headers: flatHeaders(res.headers),
        body: read.body,
        truncated: read.truncated,
        elapsedMs: elapsed(),
        address,
        redirects,
      };
    }
  } catch (error) {
    if (timedOut) {
      const ms = elapsed();
      throw new NetError("timeout", `timed out after ${ms} ms fetching ${current} (limit ${timeoutMs} ms)`, {
        url: current,
        elapsedMs: ms,
      });
    }
    if (controller.signal.aborted) {
      throw new NetError("cancelled", `fetch of ${current} was cancelled`, {
        url: current,
        elapsedMs: elapsed(),
      });
    }
    if (error instanceof NetError) throw error;
    const { reason, phrase } = describeSocketError(error);
    throw networkError(reason, current, `network error fetching ${current}: ${phrase}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCancel);
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

/**
 * Sends one request over a socket pinned to the vetted `resolved` addresses (Node tries them in turn when it
 * asks for all, as with happy eyeballs); resolves with the response head.
 */
function send(
  target: Target,
  resolved: readonly ResolvedAddress[],
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  // The socket layer asks this instead of DNS: it can only ever get the address that was vetted.
  const pinned = pinnedLookup(resolved);
  const requestHeaders: Record<string, string> = { ...headers, host: target.url.host };
  if (body !== undefined) requestHeaders["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = httpFor(target.https).request({
      protocol: target.url.protocol,
      hostname: target.host,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      method,
      headers: requestHeaders,
      lookup: pinned,
      agent: false,
      signal,
      ...(target.https && isIP(target.host) === 0 ? { servername: target.host } : {}),
    });
    req.once("response", resolve);
    // `on`, not `once`: a socket error after the response arrived must find a listener (rejecting a settled
    // promise is a no-op); the body reader sees that error through the response stream.
    req.on("error", reject);
    req.end(body);
  });
}

async function readBodyAbortable(
  res: http.IncomingMessage,
  url: string,
  options: SafeFetchOptions,
  signal: AbortSignal,
) {
  const onAbort = () => res.destroy(new Error("aborted"));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await readBody(
      res,
      url,
      options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES,
      options.onTooLarge ?? "truncate",
    );
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function initialHeaders(options: SafeFetchOptions): Record<string, string> {
  const out: Record<string, string> = {
    "user-agent": DEFAULT_UA,
    accept: options.accept ?? "*/*",
    "accept-encoding": "gzip, deflate, br",
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** Method, body and headers for the next hop (303, and 301/302 after POST, become GET without a body). */
function redirected(
  status: number,
  method: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string>,
  from: URL,
  to: URL,
) {
  const next = { ...headers };
  let nextMethod = method;
  let nextBody = body;
  if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    nextMethod = "GET";
    nextBody = undefined;
    for (const name of ["content-type", "content-length", "content-encoding"]) delete next[name];
  }
  if (from.origin !== to.origin) {
    for (const name of Object.keys(next)) if (SECRET_HEADER.test(name)) delete next[name];
  }
  return { method: nextMethod, body: nextBody, headers: next };
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error("aborted");
}
