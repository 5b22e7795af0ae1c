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
import { forwardedHeaders, socketErrorPhrase } from "./http-headers.js";

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
  const dir = mkdtempSync(join(options.parentDir ?? defaultParent(), "toolgate-net-"));
  const socketPath = join(dir, "proxy.sock");
  const stop = new AbortController();
  const sockets = new Set<Duplex>();
  const refused: string[] = [];
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
  /** The destination vetted by src/net, or a refusal (recorded) as an error message. */
  const vet = async (target: Target, subject: string) => {
    try {
      return await vetTarget(target, rules, lookup, stop.signal, {
        verb: "connect to",
        doing: "connecting to",
        subject,
        hint: "(add it to [sandbox] allow_hosts to permit it)",
      });
    } catch (error) {
      const message = error instanceof NetError ? error.message : `could not check ${subject}`;
      refuse(message);
      throw new Error(message);
    }
  };

  const server = createServer();
  server.requestTimeout = 0; // uploads may take long; the command's own timeout ends everything
  // A command cannot run toolgate out of descriptors through its proxy.
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  server.on("connection", track);
  server.on("clientError", (_error, socket) => socket.destroy());
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on("error", () => {});
    if (!authorized(req)) return reply(client, 407, "Proxy Authentication Required", AUTH_HELP, AUTH_HEADER);
    const authority = req.url ?? "";
    const target = connectTarget(authority);
    if (!target) return reply(client, 400, "Bad Request", `CONNECT needs host:port, got "${authority}"`);
    vet(target, authority).then(
      (addresses) => {
        if (client.destroyed) return; // the command gave up while the name was being checked
        const upstream = connect({ host: target.host, port: target.port, lookup: pinnedLookup(addresses) });
        track(upstream);
        upstream.once("connect", () => {
          client.write("HTTP/1.1 200 Connection established\r\n\r\n");
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on("error", (error) => {
          if (upstream.connecting) {
            reply(
              client,
              502,
              "Bad Gateway",
              `could not connect to ${authority}: ${socketErrorPhrase(error)}`,
            );
          } else client.destroy();
        });
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
      },
      (error: Error) => reply(client, 403, "Forbidden", error.message),
    );
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
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
    vet(target, target.url.href).then(
      (addresses) => {
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
        upstream.on("socket", track);
        res.once("close", () => upstream.destroy());
        upstream.once("response", (up) => {
          res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardedHeaders(up.headers));
          up.pipe(res);
        });
        upstream.on("error", (error) => {
          if (res.headersSent) res.destroy();
          else answer(res, 502, `could not fetch ${target.url.href}: ${socketErrorPhrase(error)}`);
        });
        req.pipe(upstream);
      },
      (error: Error) => answer(res, 403, error.message),
    );
  });

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
  const body = `${message}\n`;
  res.writeHead(status, {
    ...headers,
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-toolgate-proxy": "refused",
  });
  res.end(body);
}
