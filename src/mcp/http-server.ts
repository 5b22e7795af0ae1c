/**
 * @module mcp/http-server
 * toolgate as an MCP server over streamable HTTP (the SDK's server transport), for hosts that connect by URL.
 * Every request passes three checks before the protocol sees it: the `Host` header must name this server
 * and an `Origin`, when sent, must be this server's own or one allowed (both against DNS rebinding: a web page
 * in the user's browser must not reach a local gate), and the bearer token must be one of the client tokens.
 * Each MCP session gets its own protocol server, so an `ask` is elicited from the client whose call raised it.
 * Sessions belong to the token that opened them; an idle one expires, an active one never does, and new ones
 * are admitted under a cap per token and overall (`http-sessions.ts`).
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from "node:http";
import { isIP } from "node:net";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type Reservation, SessionTable } from "./http-sessions.js";
import { serverSdk } from "./sdk.js";
import { type McpServeTarget, type McpServing, type ServeMcpOptions, serveMcp } from "./server.js";

/** How long a session may sit idle (nothing in flight, no stream open) before it expires, by default (ms). */
export const DEFAULT_SESSION_IDLE_MS = 120_000;
/** Most sessions at once, by default. */
export const DEFAULT_MAX_SESSIONS = 64;

export interface ServeMcpHttpOptions extends ServeMcpOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port. Default 0 (the system picks one; read it from the result). */
  port?: number;
  /** The bearer token clients must send. Default: a random one, returned in the result. */
  token?: string;
  /**
   * One bearer token per client, instead of `token`: each client's sessions count against its own cap, so
   * one client cannot take the places of the others.
   */
  tokens?: readonly string[];
  /** Listening on an interface other than loopback must be asked for: anyone who can reach it may try. */
  allowNonLoopback?: boolean;
  /** Browser origins allowed besides this server's own (e.g. `https://inspector.example`). */
  allowedOrigins?: readonly string[];
  /** `Host` header values allowed besides the address listened on (e.g. a name in front of a proxy). */
  allowedHosts?: readonly string[];
  /** The endpoint's path. Default `/mcp`. */
  path?: string;
  /** Most sessions at once; a new one beyond is refused (503, with `Retry-After`). Default 64. */
  maxSessions?: number;
  /**
   * Most sessions at once for one client token. Default: `maxSessions` shared out evenly between the tokens
   * (all of it with one token), so every client always has room for its share.
   */
  maxSessionsPerToken?: number;
  /**
   * A session with no request in flight and no stream open for this long (ms) expires; its client must
   * initialise again (it gets 404 for the old session, as the protocol says). Default 120 000 (two minutes).
   */
  sessionIdleMs?: number;
}

/** A running HTTP server. */
export interface McpHttpServing {
  /** The endpoint, e.g. `http://127.0.0.1:43121/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The bearer token clients must send (`Authorization: Bearer <token>`); the first, with several. */
  readonly token: string;
  /** Sessions open now. */
  sessionCount(): number;
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

/** Why a server could not be started with these options. */
export class McpHttpOptionsError extends Error {}

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/**
 * Serves `target` over streamable HTTP.
 * @example
 * const gate = await createToolgate({ roots: [process.cwd()] });
 * const http = await serveMcpHttp(gate, { port: 8931 });
 * console.error(`MCP on ${http.url}, token ${http.token}`);
 */
export function serveMcpHttp(
  target: McpServeTarget,
  options: ServeMcpHttpOptions = {},
): Promise<McpHttpServing> {
  return startMcpHttp(target, options);
}

/**
 * {@link serveMcpHttp} with the clock sessions are timed by (ms; default `performance.now`): tests move it
 * instead of waiting. Not part of the public surface (`mcp/index.ts` does not export it).
 */
export async function startMcpHttp(
  target: McpServeTarget,
  options: ServeMcpHttpOptions,
  now?: () => number,
): Promise<McpHttpServing> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && !options.allowNonLoopback)
    throw new McpHttpOptionsError(
      `${host} is not a loopback address: serving beyond this machine must be asked for explicitly`,
    );
  const tokens = options.tokens?.length
    ? [...options.tokens]
    : [options.token ?? randomBytes(32).toString("base64url")];
  if (tokens.some((t) => t.length < 16))
    throw new McpHttpOptionsError("the bearer token must be at least 16 characters");
  if (new Set(tokens).size !== tokens.length) throw new McpHttpOptionsError("the client tokens must differ");
  const expected = tokens.map((t) => Buffer.from(`Bearer ${t}`));
  const path = options.path ?? "/mcp";
  const maxSessions = whole(options.maxSessions ?? DEFAULT_MAX_SESSIONS, "maxSessions");
  const maxPerToken = whole(
    options.maxSessionsPerToken ?? Math.max(1, Math.floor(maxSessions / tokens.length)),
    "maxSessionsPerToken",
  );
  const idleMs = whole(options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, "sessionIdleMs");
  const { StreamableHTTPServerTransport, types } = await serverSdk();
  const { isInitializeRequest } = types;
  type Session = { transport: StreamableHTTPServerTransport; serving: McpServing };
  // An expired session's transport is closed: its onclose stops the session's protocol server.
  const sessions = new SessionTable<Session>(
    { idleMs, maxSessions, maxPerToken, ...(now ? { now } : {}) },
    (s) => {
      void s.transport.close().catch(() => {});
    },
  );
  // Expired sessions are also reclaimed on every new session; the sweep frees what nobody asks for.
  const sweeper = setInterval(() => sessions.sweep(), Math.min(idleMs, 30_000));
  sweeper.unref();
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const refuse = (
    res: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };

  /** The index of the client token the request carries, or -1 (every token compared in constant time). */
  const clientToken = (req: IncomingMessage): number => {
    const auth = Buffer.from(req.headers.authorization ?? "");
    let found = -1;
    for (const [i, want] of expected.entries())
      if (auth.length === want.length && timingSafeEqual(auth, want)) found = i;
    return found;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const hostHeader = (req.headers.host ?? "").toLowerCase();
    if (!allowedHosts.has(hostHeader)) return refuse(res, 403, "forbidden: unexpected Host header");
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase()))
      return refuse(res, 403, "forbidden: origin not allowed");
    const token = clientToken(req);
    if (token < 0)
      return refuse(res, 401, "unauthorized: a bearer token is required", { "www-authenticate": "Bearer" });
    if (new URL(req.url ?? "/", "http://x").pathname !== path) return refuse(res, 404, "not found");

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId, token);
      if (!session) return refuse(res, 404, "unknown or expired session");
      // In flight until its response closes (a stream stays open as long as the client listens).
      res.once("close", sessions.begin(session));
      return session.value.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return refuse(res, 400, "no session: start with an initialize request");
    const body = await readJson(req);
    if (body === undefined) return refuse(res, 400, "the body is not JSON");
    if (!isInitializeRequest(body)) return refuse(res, 400, "no session: start with an initialize request");
    const place = sessions.reserve(token);
    if (!("commit" in place))
      return refuse(
        res,
        503,
        place.reason,
        place.retryAfterS === undefined ? {} : { "retry-after": String(place.retryAfterS) },
      );
    await startSession(req, res, body, place);
  };

  const startSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    place: Reservation<Session>,
  ): Promise<void> => {
    let end: (() => void) | undefined;
    res.once("close", () => (end ? end() : place.cancel()));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        end = sessions.begin(place.commit(id, { transport, serving }));
      },
    });
    let ended = false;
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      if (ended) return;
      ended = true;
      // The session's server stops listening for the gate's confirmations too.
      void serving.close().catch(() => {});
    };
    const serving = await serveMcp(target, transport, options);
    await transport.handleRequest(req, res, body);
  };

  const http: NodeHttpServer = createServer((req, res) => {
    handle(req, res).catch((error) => {
      options.logger?.warn(`MCP HTTP request failed: ${(error as Error).message}`);
      if (!res.headersSent) refuse(res, 500, "internal error");
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const own = isLoopbackHost(host)
    ? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${urlHost}:${port}`]
    : [`${urlHost}:${port}`];
  allowedHosts = new Set([...own, ...(options.allowedHosts ?? [])].map((h) => h.toLowerCase()));
  allowedOrigins = new Set(
    [...own.map((h) => `http://${h}`), ...(options.allowedOrigins ?? [])].map((o) => o.toLowerCase()),
  );

  return {
    url: `http://${urlHost}:${port}${path}`,
    host,
    port,
    token: tokens[0]!,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      const open = sessions.drain();
      await Promise.all(open.map((s) => s.serving.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A whole number ≥ 1 for a limit, or a clear error. */
function whole(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new McpHttpOptionsError(`${name} must be a whole number ≥ 1, not ${value}`);
  return value;
}

/** The request body as JSON (at most 4 MB), or undefined when it is not JSON. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}
