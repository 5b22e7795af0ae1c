/**
 * @module fleet/connect
 * The Redis client, loaded only when fleet mode is on: `redis` (node-redis) is an optional peer dependency,
 * so a gate without `[fleet]` never imports it. Also the one way scripts run (EVALSHA, falling back to EVAL
 * when the server has not seen the script).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { RedisClientType } from "redis";
import type { FleetTlsFiles } from "./settings.js";

/** A connected client (any modules). */
export type FleetClient = RedisClientType<
  Record<string, never>,
  Record<string, never>,
  Record<string, never>
>;

/** How to reach the server: `redis://`, `rediss://` (TLS), or `unix:///path/to/redis.sock`. */
export interface FleetConnectOptions {
  url: string;
  /** Redis Cluster: URLs of some of its nodes; the client discovers the rest and routes by key. */
  cluster?: readonly string[];
  /** The ACL user and its password (from the environment, never the config file: fleet/settings.ts). */
  username?: string;
  password?: string;
  /** Milliseconds to wait for the connection before failing (default 5,000). */
  connectTimeoutMs?: number;
  /** `rediss://`: the CA file to verify the server with (default Node's CAs) and a client certificate. */
  tls?: FleetTlsFiles;
}

/**
 * The TLS socket options of `files`, each file read now (a clear error naming the key when one cannot be).
 * The server's certificate and name are always verified: nothing here turns that off.
 */
async function tlsOptions(files: FleetTlsFiles | undefined): Promise<Record<string, Buffer>> {
  const options: Record<string, Buffer> = {};
  for (const name of ["ca", "cert", "key"] as const) {
    const path = files?.[name];
    if (path === undefined) continue;
    try {
      options[name] = await readFile(path);
    } catch (error) {
      throw new Error(
        `cannot read [fleet] tls_${name} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return options;
}

/** Imports `redis`, saying what to install when it is missing. */
async function loadRedis(): Promise<typeof import("redis")> {
  try {
    return await import("redis");
  } catch (error) {
    throw new Error(
      `[fleet] is set, but the "redis" package is not installed: run \`npm install redis@^6\` beside toolgate (${(error as Error).message})`,
    );
  }
}

/** The URL with any password replaced, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, "$1***@");
}

/** A client that has made its first attempt to connect. */
export interface StartedClient {
  client: FleetClient;
  /** Why the first attempt failed (the client keeps retrying with backoff), or `undefined` once connected. */
  error?: Error;
}

/**
 * Starts a client and waits for its first attempt only: connected, or the reason it is not (node-redis then
 * keeps reconnecting with backoff, and commands fail at once while it is away, so an approval fails closed).
 * Errors after that go to `onError`, never into the event loop.
 * @example const { client, error } = await startFleetClient({ url }, (e) => log(e.message));
 */
export async function startFleetClient(
  options: FleetConnectOptions,
  onError: (error: Error) => void = () => undefined,
): Promise<StartedClient> {
  const redis = await loadRedis();
  const tls = await tlsOptions(options.tls);
  if (options.cluster) return startCluster(redis, options, tls, onError);
  const timeout = options.connectTimeoutMs ?? 5_000;
  const credentials = {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
  };
  // While the server is away commands fail at once (no offline queue): an approval fails closed, now.
  const client = (options.url.startsWith("unix://")
    ? redis.createClient({
        ...credentials,
        disableOfflineQueue: true,
        commandOptions: WAIT_FOR_THE_SERVER,
        socket: { path: options.url.slice("unix://".length), connectTimeout: timeout, reconnectStrategy },
      })
    : redis.createClient({
        ...credentials,
        url: options.url,
        disableOfflineQueue: true,
        commandOptions: WAIT_FOR_THE_SERVER,
        socket: { connectTimeout: timeout, reconnectStrategy, ...tls },
      })) as unknown as FleetClient;
  let settle: (error?: Error) => void = () => undefined;
  const first = new Promise<Error | undefined>((resolve) => {
    settle = resolve;
  });
  client.once("ready", () => settle(undefined));
  client.on("error", (error: Error) => {
    settle(error);
    onError(error);
  });
  // Rejects only when the client is closed while still connecting; the first attempt's outcome is above.
  client.connect().catch(() => undefined);
  const error = await first;
  return error ? { client, error } : { client };
}

/**
 * No command timeout. node-redis 6 fails a command still waiting in its own queue, not yet sent, after 5 s
 * (a `TimeoutError` without a message): on a loaded machine a slow server, or a thousand commands sent at
 * once, left later commands unsent that long, and the calls behind them failed (the soak at the issue's
 * size failed this way at its final read of 8,000 asks). A command not yet sent is one the server never
 * saw, so waiting for it is safe. A command still fails at once when its connection closes (no offline
 * queue): a server that goes away is an error, as before. Also spares a timer per command.
 */
const WAIT_FOR_THE_SERVER = { timeout: 0 };

/** The longest wait between two reconnection attempts: a live client is back this long after its server. */
export const RECONNECT_CAP_MS = 2_000;

/** Backoff between reconnection attempts: 50 ms doubling, at most {@link RECONNECT_CAP_MS}. */
function reconnectStrategy(retries: number): number {
  return Math.min(50 * 2 ** retries, RECONNECT_CAP_MS);
}

/**
 * Connects a new client, or fails at the first attempt with a message naming the server (password hidden).
 * @example const client = await connectFleet({ url: "redis://127.0.0.1:6379" });
 */
export async function connectFleet(
  options: FleetConnectOptions,
  onError: (error: Error) => void = () => undefined,
): Promise<FleetClient> {
  const { client, error } = await startFleetClient(options, onError);
  if (!error) return client;
  client.destroy();
  throw new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${error.message}`);
}

/**
 * A cluster client behind the one-server client's face: commands go to the node owning their key (every key
 * of a project is in one slot, so every script's keys are too). Discovery failing is the first attempt's
 * error; the client then keeps retrying at the next command.
 */
async function startCluster(
  redis: typeof import("redis"),
  options: FleetConnectOptions,
  tls: Record<string, Buffer>,
  onError: (error: Error) => void,
): Promise<StartedClient> {
  const timeout = options.connectTimeoutMs ?? 5_000;
  const cluster = redis.createCluster({
    rootNodes: (options.cluster ?? []).map((url) => ({ url })),
    defaults: {
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      disableOfflineQueue: true,
      socket: { connectTimeout: timeout, reconnectStrategy, ...tls },
    },
    commandOptions: WAIT_FOR_THE_SERVER,
  });
  cluster.on("error", (error: Error) => onError(error));
  const client = clusterClient(cluster);
  try {
    await cluster.connect();
    return { client };
  } catch (error) {
    return { client, error: error as Error };
  }
}

/**
 * The cluster client answering what fleet mode asks of a client: typed commands route by their key already;
 * a raw command's key is found here (a script's first key, or the word after the command), `duplicate()`
 * gives another wrapped cluster (pub/sub there reaches every node's PUBLISH), and `ready` is the connected
 * cluster.
 */
function clusterClient(cluster: RawCluster): FleetClient {
  return new Proxy(cluster, {
    get(target, name) {
      if (name === "sendCommand")
        return (args: string[]) => target.sendCommand(commandKey(args), false, args);
      if (name === "duplicate") return () => clusterClient(target.duplicate());
      if (name === "connect")
        return async () => {
          await target.connect();
          target.emit("ready");
          return clusterClient(target);
        };
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as FleetClient;
}

/** What {@link clusterClient} uses of node-redis's cluster client. */
interface RawCluster {
  sendCommand(firstKey: string | undefined, isReadonly: boolean, args: string[]): Promise<unknown>;
  duplicate(): RawCluster;
  connect(): Promise<unknown>;
  emit(event: string): boolean;
}

/** The key a raw command touches first (routes it in a cluster), or `undefined` for a command with none. */
export function commandKey(args: readonly string[]): string | undefined {
  const command = args[0]?.toUpperCase();
  if (command === "EVAL" || command === "EVALSHA") return Number(args[2]) > 0 ? args[3] : undefined;
  if (command === "INFO" || command === "PING" || command === "CONFIG") return undefined;
  return args[1];
}

const shas = new Map<string, string>();

/** Runs a Lua script atomically on the server: EVALSHA, or EVAL when the server does not have it yet. */
export async function runScript(
  client: FleetClient,
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  let sha = shas.get(script);
  if (!sha) {
    sha = createHash("sha1").update(script).digest("hex");
    shas.set(script, sha);
  }
  const tail = [String(keys.length), ...keys, ...args.map(String)];
  try {
    return await client.sendCommand(["EVALSHA", sha, ...tail]);
  } catch (error) {
    if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
    return client.sendCommand(["EVAL", script, ...tail]);
  }
}
