/**
 * @module sandbox/network/proxy
 * The egress proxy of one network-granted command: an HTTP proxy (CONNECT for https and other TCP, absolute-form
 * requests for plain http) on a unix socket in a private folder, which the forwarder in the command's network
 * namespace relays to (./forwarder.ts). Every destination goes through src/net's address rules — the name
 * checked, resolved once, every address vetted, the socket pinned — so a command reaches what `web_fetch`
 * reaches and nothing more. A credential made for this command keeps every other process out.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import {
  defaultLookup,
  NetError,
  parseAllowHosts,
  pinnedLookup,
  type Resolver,
  type Target,
  toTarget,
  vetTarget,
} from "../../net/index.js";
import { guarded, inTurn, onSettled } from "./guard.js";
import { forwardedHeaders, socketErrorPhrase } from "./http-headers.js";
import { lookupQueue } from "./lookup-queue.js";
import { PROXY_DIR_PREFIX, sweepStaleProxyDirs } from "./stale.js";

/** The user name of the proxy credential (the password is made per command). */
export const PROXY_USER = "toolgate";
/** How many refusals a proxy remembers for the command's result. */
const MAX_REFUSALS = 10;
/** Connections from the command at once (each holds a descriptor of toolgate's; npm uses a few dozen). */
const MAX_CONNECTIONS = 256;

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** `[sandbox] allow_hosts`: private or loopback hosts (`host`, `host:port`) the command may reach anyway. */
  allowHosts: readonly string[];
  /** Name resolution (default: the system resolver). Tests map names to any address. */
  lookup?: Resolver;
  /** Where the private folder of the socket is made (default `/tmp`: private inside every sandbox). */
  parentDir?: string;
  /** Connections from the command at once; more are closed at once (default 256). */
  maxConnections?: number;
}

/** A running egress proxy. */
export interface EgressProxy {
  /** The unix socket it listens on (in a folder only this user can enter). */
  socketPath: string;
  /** The password of the per-command credential (user {@link PROXY_USER}). */
  token: string;
  /** What it refused, in order (at most 10): the messages a person or model needs to understand a failure. */
  refusals(): readonly string[];
  /** Stops listening, ends every connection and removes the socket's folder. Idempotent. */
  close(): void;
}

/**
 * Starts a proxy for one command.
 * @example const proxy = await startEgressProxy({ allowHosts: ["127.0.0.1:4873"] }); ...; proxy.close();
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const rules = parseAllowHosts(options.allowHosts);
  const lookup = options.lookup ?? defaultLookup;
  const token = randomBytes(24).toString("hex");
  const expected = Buffer.from(`Basic ${Buffer.from(`${PROXY_USER}:${token}`).toString("base64")}`);
  const parent = options.parentDir ?? defaultParent();
  sweepOnce(parent);
  const dir = mkdtempSync(join(parent, PROXY_DIR_PREFIX));
  const socketPath = join(dir, "proxy.sock");
  const stop = new AbortController();
  const sockets = new Set<Duplex>();
  const refused: string[] = [];
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  let upstreams = 0;
  const resolverFor = lookupQueue(lookup);
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const refuse = (message: string) => {
    if (refused.length < MAX_REFUSALS && !refused.includes(message)) refused.push(message);
  };
  const authorized = (req: IncomingMessage) => {
    const given = Buffer.from(req.headers["proxy-authorization"] ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  /** A signal that fires when `peer` closes or the proxy does (a waiting lookup is then dropped). */
  const leaving = (peer: { once(event: "close", listener: () => void): unknown }) => {
    const left = new AbortController();
    peer.once("close", () => left.abort());
    return AbortSignal.any([stop.signal, left.signal]);
  };
  /** The destination vetted by src/net, or a refusal (recorded) as an error message. */
  const vet = async (target: Target, subject: string, signal: AbortSignal) => {
    try {
      return await vetTarget(target, rules, resolverFor(signal), signal, {
        verb: "connect to",
        doing: "connecting to",
        subject,
        hint: "(add it to [sandbox] allow_hosts to permit it)",
      });
    } catch (error) {
      if (signal.aborted) throw new Error("the command left");
      const message = error instanceof NetError ? error.message : `could not check ${subject}`;
      refuse(message);
      throw new Error(message);
    }
  };
  /** Counts an upstream socket against the bound; false (refusal recorded) when the command holds too many. */
  const claimUpstream = (subject: string): boolean => {
    if (upstreams >= maxConnections) {
      refuse(
        `refused to connect to ${subject}: the command holds ${maxConnections} connections through its proxy`,
      );
      return false;
    }
    upstreams++;
    return true;
  };

  const server = createServer();
  server.requestTimeout = 0; // uploads may take long; the command's own timeout ends everything
  // A command cannot run toolgate out of descriptors through its proxy: its connections are bounded here,
  // the proxy's own connections out by `claimUpstream`, and each connection serves one request at a time.
  server.maxConnections = maxConnections;
  server.on("connection", track);
  server.on("clientError", (_error, socket) => socket.destroy());
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on("error", () => {});
    guarded(() => tunnel(req, client, head), client);
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    inTurn(req, res, () => guarded(() => forward(req, res), res));
  });

  /** CONNECT: vet the authority, then splice the client to a pinned upstream socket. */
  const tunnel = (req: IncomingMessage, client: Duplex, head: Buffer) => {
    if (!authorized(req)) return reply(client, 407, "Proxy Authentication Required", AUTH_HELP, AUTH_HEADER);
    const authority = req.url ?? "";
    const target = connectTarget(authority);
    if (!target) return reply(client, 400, "Bad Request", `CONNECT needs host:port, got "${authority}"`);
    const signal = leaving(client);
    onSettled(
      vet(target, authority, signal),
      (addresses) => {
        if (client.destroyed || signal.aborted) return; // the command gave up while the name was being checked
        if (!claimUpstream(authority)) return reply(client, 503, "Service Unavailable", TOO_MANY);
        const upstream = connect({ host: target.host, port: target.port, lookup: pinnedLookup(addresses) });
        track(upstream);
        upstream.once("close", () => upstreams--);
        upstream.once("connect", () => {
          client.write("HTTP/1.1 200 Connection established\r\n\r\n");
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on("error", (error) => {
          if (upstream.connecting) {
            const why = `could not connect to ${authority}: ${socketErrorPhrase(error)}`;
            reply(client, 502, "Bad Gateway", why);
          } else client.destroy();
        });
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
      },
      (error) => reply(client, 403, "Forbidden", error.message),
      () => client.destroy(),
    );
  };

  /** An absolute-form http request: vet the URL's host, then forward to a pinned upstream connection. */
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) return answer(res, 407, AUTH_HELP, AUTH_HEADER);
    const raw = req.url ?? "";
    if (!/^http:\/\//i.test(raw)) {
      const why = /^https:/i.test(raw)
        ? "https goes through CONNECT (set HTTPS_PROXY, not a plain request to the proxy)"
        : "this is toolgate's egress proxy: send absolute http:// URLs or CONNECT";
      return answer(res, 400, why);
    }
    let target: Target;
    try {
      target = toTarget(raw);
    } catch (error) {
      return answer(res, 400, (error as Error).message);
    }
    // Listened for before the lookup: a client that leaves during it leaves no upstream socket behind.
    const signal = leaving(res);
    onSettled(
      vet(target, target.url.href, signal),
      (addresses) => {
        if (signal.aborted || req.destroyed || res.destroyed) return;
        if (!claimUpstream(target.url.host)) return answer(res, 503, TOO_MANY);
        const upstream = request({
          host: target.host,
          port: target.port,
          method: req.method,
          path: `${target.url.pathname}${target.url.search}`,
          // RFC 9112 §3.2.2: the target's authority replaces whatever Host the request carried.
          headers: { ...forwardedHeaders(req.headers), host: target.url.host },
          lookup: pinnedLookup(addresses),
          agent: false,
          setHost: false,
        });
        upstream.once("close", () => upstreams--);
        upstream.on("socket", track);
        res.once("close", () => upstream.destroy());
        upstream.once("response", (up) =>
          guarded(() => {
            const status = up.statusCode ?? 0;
            if (status < 200 || status > 599) {
              up.destroy();
              return answer(res, 502, `${target.url.href} answered with an invalid status (${status})`);
            }
            // The server's reason phrase is not passed on (Node checks it and would throw): the standard one is.
            res.writeHead(status, forwardedHeaders(up.headers));
            up.pipe(res);
          }, res),
        );
        upstream.on("error", (error) => {
          if (res.headersSent) res.destroy();
          else answer(res, 502, `could not fetch ${target.url.href}: ${socketErrorPhrase(error)}`);
        });
        req.pipe(upstream);
      },
      (error) => answer(res, 403, error.message),
      () => res.destroy(),
    );
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  let closed = false;
  return {
    socketPath,
    token,
    refusals: () => [...refused],
    close() {
      if (closed) return;
      closed = true;
      stop.abort();
      server.close();
      for (const socket of sockets) socket.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const AUTH_HELP = "toolgate's egress proxy needs the credential in HTTP_PROXY / HTTPS_PROXY";
const AUTH_HEADER = { "proxy-authenticate": 'Basic realm="toolgate"' };
const TOO_MANY = `the command holds ${MAX_CONNECTIONS} connections through toolgate's proxy; close some first`;

const swept = new Set<string>();

/** The first proxy of this process below `parent` removes what killed toolgates left there (in the background). */
function sweepOnce(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  void sweepStaleProxyDirs(parent);
}

/** `/tmp` where it exists (private inside every sandbox, and short: a socket path holds 107 bytes). */
function defaultParent(): string {
  return process.platform === "linux" ? "/tmp" : tmpdir();
}

/** The target of `CONNECT host:port` (normalized like a URL's host), or undefined when malformed. */
function connectTarget(authority: string): Target | undefined {
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]\\]+):\d{1,5}$/.test(authority)) return undefined;
  try {
    const target = toTarget(`https://${authority}/`);
    return target.port >= 1 && target.port <= 65535 ? target : undefined;
  } catch {
    return undefined;
  }
}

/** A raw HTTP answer on a CONNECT socket, then the socket closes. The reason phrase carries the message. */
function reply(
  socket: Duplex,
  status: number,
  phrase: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = `${message}\n`;
  const reason = `${phrase}: ${message}`.replace(/[^\x20-\x7e]/g, "?").slice(0, 300);
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "content-type: text/plain; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    body,
  ];
  (socket as Socket).end(lines.join("\r\n"));
}

/** A plain-text answer to a proxied request. */
function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = `${message}\n`;
  res.writeHead(status, {
    ...headers,
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-toolgate-proxy": "refused",
  });
  res.end(body);
}
