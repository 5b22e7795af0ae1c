/**
 * @module console/serve
 * Starts the console: on loopback unless `allowRemote`, which needs TLS files or an explicit acknowledgement
 * that the token and session will cross the network in clear. The Host names it answers to are the loopback
 * names with its port, plus the listen address and `publicHosts` when remote.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createAdaptorServer, type HttpBindings, type ServerType } from "@hono/node-server";
import type { ApprovalStore } from "../core/index.js";
import { ConsoleAccess } from "./access.js";
import { createConsoleApp } from "./app.js";
import { PeerTable } from "./peer-table.js";
import { type Peer, PeerChecks } from "./peer-uid.js";
import type { SignInLimitOptions } from "./signin-limit.js";
import { PEER_BINDING, signInKey } from "./signin-limit.js";

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  store: ApprovalStore;
  /** The sign-in token (at least 32 characters: `consoleTokenProblem`). */
  token: string;
  /** Listen address (default 127.0.0.1; anything not loopback needs `allowRemote`). */
  host?: string;
  /** Port (default 0: any free one). */
  port?: number;
  allowRemote?: boolean;
  /** PEM files: serve HTTPS. */
  tls?: { cert: string; key: string };
  /** With `allowRemote` and no `tls`: the person accepted plain HTTP over the network. */
  insecureHttp?: boolean;
  /** Extra Host names (`name` or `name:port`) the console answers to when remote. */
  publicHosts?: readonly string[];
  auditFile?: string;
  /** How many wrong tokens sign-in takes before it waits (defaults in console/signin-limit.ts). */
  signInLimit?: SignInLimitOptions;
  /** How often overdue asks are expired, so open pages see them go (default 2 s). */
  expireEveryMs?: number;
}

/** A running console. */
export interface RunningConsole {
  /** `http://127.0.0.1:PORT/` (or https). */
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Why these options cannot start a console, or undefined. */
export function consoleOptionsProblem(options: ConsoleOptions): string | undefined {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host) && !options.allowRemote)
    return `the console listens on loopback only: ${host} needs --allow-remote`;
  if (options.allowRemote && !options.tls && !options.insecureHttp)
    return "--allow-remote needs --tls-cert and --tls-key (or --insecure-http, accepting that the token and the session cross the network unencrypted)";
  return undefined;
}

/** A page script (`app.js`, `login.js`), built by scripts/bundle.mjs next to this module's folder (or in dist/ when run from src/). */
function pageScript(file: string): string {
  for (const relative of [`../console/page/${file}`, `../../dist/console/page/${file}`]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error(`the console page's script is missing (dist/console/page/${file}): run npm run build`);
}

const refusedResponse = (text: string) =>
  new Response(text, {
    status: 403,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Frame-Options": "DENY",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    },
  });

/** Listens on `host` at `port`; resolves once listening, rejects with the listen error. */
function listenOn(server: ServerType, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once("error", failed);
    server.listen({ host, port, ...(host.includes(":") ? { ipv6Only: true } : {}) }, () => {
      server.off("error", failed);
      resolve();
    });
  });
}

const closeQuietly = (servers: readonly ServerType[]) =>
  Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));

/**
 * The addresses the console holds for a listen address. A loopback console holds 127.0.0.1 AND ::1 at
 * the same port: an origin is host:port, not a process, and a browser tries `localhost` on ::1 first — a
 * loopback socket the console left free would be anyone's to serve its page from (red team F9).
 */
export function heldAddresses(host: string): string[] {
  if (LOOPBACK.has(host)) return ["127.0.0.1", "::1"];
  if (host === "0.0.0.0") return ["0.0.0.0", "::1"];
  return [host];
}

/** Errors that mean this machine has no such address family: then nobody else can hold it either. */
const NO_FAMILY = new Set(["EADDRNOTAVAIL", "EAFNOSUPPORT"]);

/**
 * Listens at every address of {@link heldAddresses} on one port. A taken port on any of them refuses to
 * start, naming who holds it; with port 0 another free port is tried when the second address's is taken.
 */
async function listenAll(host: string, port: number, make: () => ServerType): Promise<ServerType[]> {
  const [first, ...others] = heldAddresses(host) as [string, ...string[]];
  for (let attempt = 0; ; attempt++) {
    const main = make();
    const servers = [main];
    await listenOn(main, first, port);
    const chosen = (main.address() as AddressInfo).port;
    try {
      for (const address of others) {
        const server = make();
        try {
          await listenOn(server, address, chosen);
          servers.push(server);
        } catch (error) {
          if (NO_FAMILY.has((error as NodeJS.ErrnoException).code ?? "")) continue;
          throw error;
        }
      }
      return servers;
    } catch (error) {
      await closeQuietly(servers);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE" && port === 0 && attempt < 10) continue;
      if (code === "EADDRINUSE")
        throw new Error(
          `port ${chosen} is taken on ${others.join(", ")} by another program${holderOf(chosen)}: a browser going to localhost:${chosen} would reach it, not the console; stop it or choose another --listen port`,
        );
      throw error;
    }
  }
}

/** ` (uid N)` of a socket listening at ::1:`port`, from /proc/net/tcp6, when it can be read. */
function holderOf(port: number): string {
  try {
    const want = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
    for (const line of readFileSync("/proc/net/tcp6", "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(want) && cols[3] === "0A") return ` (uid ${cols[7]})`;
    }
  } catch {
    // Not Linux: the holder is not named.
  }
  return "";
}

/**
 * Starts the console and resolves once it listens.
 * @example const running = await startConsole({ store, token }); console.log(running.url);
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const problem = consoleOptionsProblem(options);
  if (problem) throw new Error(problem);
  const host = options.host ?? "127.0.0.1";
  const tls = options.tls
    ? { cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) }
    : undefined;
  const script = pageScript("app.js");
  // The port is known only once listening: the Host names are allowed then.
  const access = new ConsoleAccess({
    token: options.token,
    tls: tls !== undefined,
    ...(options.signInLimit ? { signInLimit: options.signInLimit } : {}),
  });
  const app = createConsoleApp({
    store: options.store,
    access,
    script,
    loginScript: pageScript("login.js"),
    ...(options.auditFile ? { auditFile: options.auditFile } : {}),
  });
  const ownUid = process.getuid?.();
  // On Linux every peer must be the console's own user (console/peer-uid.ts); elsewhere it cannot be told.
  const peers =
    process.platform === "linux" && ownUid !== undefined
      ? new PeerChecks(new PeerTable(), ownUid, options.allowRemote === true)
      : undefined;
  const fetch: typeof app.fetch = async (request, env) => {
    const socket = (env as HttpBindings).incoming.socket;
    const peer: Peer = peers ? await peers.of(socket) : { remote: socket.remoteAddress ?? "unknown" };
    if ("refused" in peer) return refusedResponse(peer.refused);
    return app.fetch(request, { ...(env as object), [PEER_BINDING]: signInKey(peer) });
  };
  const servers = await listenAll(host, options.port ?? 0, () => {
    const server = createAdaptorServer({
      fetch,
      ...(tls ? { createServer: createHttpsServer, serverOptions: tls } : {}),
    });
    // Looked up when accepted, before a request is read (console/peer-uid.ts PeerChecks).
    if (peers) server.on("connection", (socket) => void peers.of(socket));
    return server;
  });
  const port = ((servers[0] as ServerType).address() as AddressInfo).port;
  for (const name of ["127.0.0.1", "localhost", "[::1]"]) access.allowHost(`${name}:${port}`);
  if (options.allowRemote) {
    access.allowHost(`${host.includes(":") ? `[${host}]` : host}:${port}`);
    // A public name as given (with its port, or none when a proxy serves it on 443/80), and with ours.
    for (const name of options.publicHosts ?? []) access.allowHost(name).allowHost(`${name}:${port}`);
  }
  const timer = setInterval(
    () => void options.store.expire().catch(() => undefined),
    options.expireEveryMs ?? 2_000,
  );
  timer.unref();
  const shown = LOOPBACK.has(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return {
    url: `${tls ? "https" : "http"}://${shown}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        let open = servers.length;
        for (const server of servers) {
          server.close(() => {
            if (--open === 0) resolve();
          });
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        }
      }),
  };
}
