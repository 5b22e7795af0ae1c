/**
 * @module sandbox/network/connect
 * What a network grant gives a command: not the host's network, but a fresh network namespace whose one way out
 * is toolgate's egress proxy (./proxy.ts), reached through a forwarder (./forwarder.ts), with the proxy
 * variables set inside. `prepareSandbox` leaves a granted command sealed and marks it pending; `connectNetwork`
 * starts the proxy and the namespace and only then gives the command its argv. If either cannot start, the
 * call is refused with the reason — never run with the host's network.
 */
import { ConfigError } from "../../core/index.js";
import { parseAllowHosts } from "../../net/index.js";
import type { Confinement, Launch } from "../prepare.js";
import { SandboxSetupError } from "../survey.js";
import { openForwarder } from "./forwarder.js";
import { PROXY_USER, startEgressProxy } from "./proxy.js";

/** The port the proxy answers on inside a command's network namespace (127.0.0.1). */
export const PROXY_PORT = 3128;
/** Loopback names that stay the command's own (its namespace's loopback) unless `[sandbox] allow_hosts` names them. */
const OWN_LOOPBACK = ["localhost", "127.0.0.1", "::1"];

/** A network grant waiting for its namespace. */
export interface PendingNetwork {
  /** `[sandbox] allow_hosts`. */
  allowHosts: readonly string[];
  bwrap: string;
  /** The command's start run through `enter` (into the namespace), with `env` set inside. */
  launch(enter: readonly string[], env: Readonly<Record<string, string>>): Launch;
}

/**
 * The pending network of a command. `launch` gives its start with `env` set inside, its bwrap keeping the
 * namespace it is started in (a plan with `network: true`); `enter` goes in front of it, and nsenter passes the
 * descriptors on to bwrap unchanged, so they keep their numbers (bwrap's arguments at 3, the filter at 4, …).
 */
export function pendingNetwork(
  launch: (env: Readonly<Record<string, string>>) => Launch,
  bwrap: string,
  allowHosts: readonly string[],
): PendingNetwork {
  return {
    allowHosts,
    bwrap,
    launch: (enter, env) => {
      const { argv, fds } = launch(env);
      return { argv: [...enter, ...argv], fds };
    },
  };
}

/**
 * Gives a pending network grant its namespace and proxy; anything else is returned as it is. The result's
 * `release` ends the namespace, the forwarder and the proxy too; its `notes` list what the proxy refused.
 * @throws SandboxSetupError when the namespace or the proxy cannot start (the placeholders are released).
 */
export async function connectNetwork(confinement: Confinement): Promise<Confinement> {
  if (!confinement.sandboxed || !confinement.network) return confinement;
  const pending = confinement.network;
  const proxy = await startEgressProxy({ allowHosts: pending.allowHosts }).catch((error: Error) => {
    confinement.release();
    throw setupError(`its egress proxy could not start: ${error.message}`);
  });
  let forwarder: Awaited<ReturnType<typeof openForwarder>>;
  try {
    forwarder = await openForwarder({ socketPath: proxy.socketPath, port: PROXY_PORT, bwrap: pending.bwrap });
  } catch (error) {
    proxy.close();
    confinement.release();
    throw setupError((error as Error).message);
  }
  const env = proxyEnv(proxy.token, pending.allowHosts);
  const { network: _pending, ...rest } = confinement;
  let released = false;
  return {
    ...rest,
    ...pending.launch(forwarder.enter, env),
    notes: () => proxy.refusals().map((message) => `network: ${message}`),
    release: () => {
      if (released) return undefined;
      released = true;
      forwarder.close();
      proxy.close();
      return confinement.release();
    },
  };
}

/**
 * The proxy variables set inside a network-granted command (both spellings: curl, git, pip and Python read
 * the lower-case ones, npm and others the upper-case). Loopback stays the command's own, except hosts
 * `[sandbox] allow_hosts` names, which go through the proxy to the host.
 * @example proxyEnv("t0k3n", [])["NO_PROXY"] // "localhost,127.0.0.1,::1"
 */
export function proxyEnv(token: string, allowHosts: readonly string[]): Record<string, string> {
  const url = `http://${PROXY_USER}:${token}@127.0.0.1:${PROXY_PORT}`;
  const named = new Set(parseAllowHosts(allowHosts).map((rule) => rule.host));
  const direct = OWN_LOOPBACK.filter((host) => !named.has(host)).join(",");
  const env: Record<string, string> = { NO_PROXY: direct, no_proxy: direct, NODE_USE_ENV_PROXY: "1" };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  return env;
}

/**
 * Checks `[sandbox] allow_hosts` entries when the gate is made (not at the first command).
 * @throws ConfigError naming the bad entry.
 */
export function checkSandboxAllowHosts(entries: readonly string[]): void {
  try {
    parseAllowHosts(entries);
  } catch (error) {
    throw new ConfigError(
      `sandbox.${(error as Error).message.replace("invalid allow_hosts", "allow_hosts: invalid")}`,
    );
  }
}

function setupError(why: string): SandboxSetupError {
  return new SandboxSetupError(
    `the command was granted network, but its network namespace could not be set up: ${why}. The command did ` +
      "not run (a network grant never falls back to the host's network). A network grant needs bwrap, socat " +
      "and nsenter (apt-get install bubblewrap socat util-linux)",
  );
}
