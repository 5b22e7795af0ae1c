/**
 * @module net/http
 * toolgate's one HTTP path: web tools, model clients, model downloads and `doctor` all send through
 * {@link httpRequest}, so every request has the same redirect handling, timeouts and typed failures
 * (`NetError`: `network` with a reason, `timeout`, `cancelled`). Its mode says whose URL it is:
 * - `untrusted` — a URL from a model, a tool argument or a web page: each hop's host is resolved once, every
 *   address vetted (no loopback, private, link-local or metadata address unless `allowHosts` names it), the
 *   socket pinned to the vetted addresses.
 * - `configured` — an endpoint the user named (`[llm] base_url`, a model's download URL): its own host and
 *   port are allowed whatever they resolve to (a model server on loopback keeps working); a redirect that
 *   leaves them is vetted as untrusted.
 * The body streams ({@link HttpResponse.chunks}), decoded, with the idle timer re-armed at each chunk;
 * `safeFetch` reads it whole under a byte cap.
 */
import type http from "node:http";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { decodedBody, decodeFailure } from "./body.js";
import { describeSocketError, NetError, networkError } from "./errors.js";
import { type HostRule, parseAllowHosts, type Target, toTarget } from "./target.js";
import { defaultLookup, pinnedLookup, type ResolvedAddress, type Resolver, vetTarget } from "./vet.js";

/** Whose URL a request goes to: decides whether its own host is vetted (see the module comment). */
export type HttpMode = "untrusted" | "configured";

/** Options of {@link httpRequest}. */
export interface HttpOptions {
  mode: HttpMode;
  /** Default `GET`. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Total time for every hop, the headers and the body. Default: no total limit. */
  timeoutMs?: number;
  /** Longest wait for the next byte: the response head, then each body chunk. Default: no idle limit. */
  idleMs?: number;
  /** Redirect hops followed (each re-checked); one more is a `too_many_redirects` error. Default 5. */
  maxRedirects?: number;
  /** Private or loopback hosts that may be reached anyway: `host` (any port) or `host:port`. Default none. */
  allowHosts?: readonly string[];
  /** The `Accept` header, unless `headers` sets one. Default `*\/*`. */
  accept?: string;
  /** Name resolution. Default `dns.promises.lookup(host, { all: true })`. */
  lookup?: Resolver;
}

/** A response whose head arrived (any status: callers decide what an HTTP error is). */
export interface HttpResponse {
  status: number;
  statusText: string;
  /** The final URL, after redirects. */
  url: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The address the final hop connected to. */
  address: string;
  /** URLs of the hops before the final one. */
  redirects: string[];
  /** Milliseconds since the request started. */
  elapsedMs(): number;
  /**
   * The body, decoded (gzip, deflate, br), chunk by chunk; throws a NetError when cut, timed out or
   * cancelled. Ending or leaving the loop releases the connection.
   */
  chunks(): AsyncGenerator<Buffer>;
  /** Drops the rest of the body and releases the connection. */
  close(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_UA = "Mozilla/5.0 (compatible; toolgate/0.1; +https://www.npmjs.com/package/toolgate)";
/** Headers that carry credentials; dropped when a redirect leaves the origin. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|api-?key/i;

// http and https (with tls) are loaded on the first request, not with every `toolgate` start-up.
const load = createRequire(import.meta.url);
const httpFor = (secure: boolean) =>
  secure ? (load("node:https") as typeof import("node:https")) : (load("node:http") as typeof http);

/**
 * Sends a request and resolves once the response head is there. Throws {@link NetError}: `network` (bad
 * URL, blocked host or address with the reason, DNS failure, refused connection, too many redirects),
 * `timeout` (with `elapsedMs`), `cancelled`; the body's chunks throw the same.
 * @example
 * const res = await httpRequest(`${baseUrl}/api/tags`, { mode: "configured", timeoutMs: 3_000 });
 * res.close();
 */
export async function httpRequest(url: string | URL, options: HttpOptions): Promise<HttpResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let expired: "total" | "idle" | undefined;
  const expire = (why: "total" | "idle") => () => {
    expired ??= why;
    controller.abort();
  };
  // Unref'd: an open socket keeps the process alive while it matters; a forgotten response's timer must not.
  const total =
    options.timeoutMs === undefined ? undefined : setTimeout(expire("total"), options.timeoutMs).unref();
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    if (options.idleMs === undefined) return;
    clearTimeout(idle);
    idle = setTimeout(expire("idle"), options.idleMs).unref();
  };
  const onCancel = () => controller.abort();
  options.signal?.addEventListener("abort", onCancel, { once: true });
  const release = () => {
    clearTimeout(total);
    clearTimeout(idle);
    options.signal?.removeEventListener("abort", onCancel);
  };
  let current = String(url);
  /** Any failure as a NetError naming the hop it happened on. */
  const failure = (error: unknown): NetError => {
    if (expired) {
      const ms = elapsed();
      const limit =
        expired === "total" ? `limit ${options.timeoutMs} ms` : `no byte for ${options.idleMs} ms`;
      return new NetError("timeout", `timed out after ${ms} ms fetching ${current} (${limit})`, {
        url: current,
        elapsedMs: ms,
      });
    }
    if (controller.signal.aborted)
      return new NetError("cancelled", `fetch of ${current} was cancelled`, {
        url: current,
        elapsedMs: elapsed(),
      });
    if (error instanceof NetError) return error;
    const { reason, phrase } = describeSocketError(error);
    return networkError(reason, current, `network error fetching ${current}: ${phrase}`);
  };
  try {
    if (options.signal?.aborted) controller.abort();
    arm();
    let target = toTarget(url);
    current = target.url.href;
    const rules: HostRule[] = [...parseAllowHosts(options.allowHosts ?? [])];
    if (options.mode === "configured") rules.push({ host: target.host, port: target.port });
    let method = (options.method ?? "GET").toUpperCase();
    let body = options.body;
    let headers = initialHeaders(options);
    const redirects: string[] = [];
    for (;;) {
      if (controller.signal.aborted) throw new Error("aborted");
      const resolved = await vetTarget(target, rules, options.lookup ?? defaultLookup, controller.signal);
      const res = await send(target, resolved, method, headers, body, controller.signal);
      const address = res.socket?.remoteAddress ?? resolved[0]?.address ?? "";
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode ?? 0) && location) {
        res.destroy();
        const limit = options.maxRedirects ?? 5;
        if (redirects.length >= limit) {
          throw networkError(
            "too_many_redirects",
            current,
            `too many redirects fetching ${String(url)} (limit ${limit})`,
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
      arm();
      return opened(res, { url: current, address, redirects, elapsed, arm, release, failure, controller });
    }
  } catch (error) {
    release();
    throw failure(error);
  }
}

/** The response object over an open `IncomingMessage`. */
function opened(
  res: http.IncomingMessage,
  parts: {
    url: string;
    address: string;
    redirects: string[];
    elapsed: () => number;
    arm: () => void;
    release: () => void;
    failure: (error: unknown) => NetError;
    controller: AbortController;
  },
): HttpResponse {
  const { arm, release, failure } = parts;
  const onAbort = () => res.destroy(new Error("aborted"));
  parts.controller.signal.addEventListener("abort", onAbort, { once: true });
  const close = () => {
    release();
    parts.controller.signal.removeEventListener("abort", onAbort);
    if (!res.complete) res.destroy();
  };
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? "",
    url: parts.url,
    headers: flatHeaders(res.headers),
    address: parts.address,
    redirects: parts.redirects,
    elapsedMs: parts.elapsed,
    close,
    async *chunks() {
      try {
        for await (const chunk of decodedBody(res, parts.url)) {
          arm();
          yield chunk as Buffer;
        }
      } catch (error) {
        throw decodeFailure(error, res, parts.url) ?? failure(error);
      } finally {
        close();
      }
    },
  };
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

function initialHeaders(options: HttpOptions): Record<string, string> {
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
