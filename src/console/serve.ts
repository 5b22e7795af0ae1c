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
import { serve } from "@hono/node-server";
import type { ApprovalStore } from "../core/index.js";
import { ConsoleAccess } from "./access.js";
import { createConsoleApp } from "./app.js";
import type { SignInLimitOptions } from "./signin-limit.js";

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
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port: options.port ?? 0,
        ...(tls ? { createServer: createHttpsServer, serverOptions: tls } : {}),
      },
      () => resolve(s),
    );
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
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
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
