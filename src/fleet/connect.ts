/**
 * @module fleet/connect
 * The Redis client, loaded only when fleet mode is on: `redis` (node-redis) is an optional peer dependency,
 * so a gate without `[fleet]` never imports it. Also the one way scripts run (EVALSHA, falling back to EVAL
 * when the server has not seen the script).
 */
import { createHash } from "node:crypto";
import type { RedisClientType } from "redis";

/** A connected client (any modules). */
export type FleetClient = RedisClientType<
  Record<string, never>,
  Record<string, never>,
  Record<string, never>
>;

/** How to reach the server: `redis://`, `rediss://` (TLS), or `unix:///path/to/redis.sock`. */
export interface FleetConnectOptions {
  url: string;
  /** Milliseconds to wait for the connection before failing (default 5,000). */
  connectTimeoutMs?: number;
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

/**
 * Connects a new client. Errors after connecting are reported to `onError` (never thrown into the event
 * loop); node-redis reconnects with backoff on its own, and commands fail while it is away.
 * @example const client = await connectFleet({ url: "redis://127.0.0.1:6379" });
 */
export async function connectFleet(
  options: FleetConnectOptions,
  onError: (error: Error) => void = () => undefined,
): Promise<FleetClient> {
  const { createClient } = await loadRedis();
  const timeout = options.connectTimeoutMs ?? 5_000;
  const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 2_000);
  // While the server is away commands fail at once (no offline queue): an approval fails closed, now.
  const client = options.url.startsWith("unix://")
    ? createClient({
        disableOfflineQueue: true,
        socket: { path: options.url.slice("unix://".length), connectTimeout: timeout, reconnectStrategy },
      })
    : createClient({
        url: options.url,
        disableOfflineQueue: true,
        socket: { connectTimeout: timeout, reconnectStrategy },
      });
  client.on("error", onError);
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw new Error(`cannot reach Redis at ${redactUrl(options.url)}: ${(error as Error).message}`);
  }
  return client as unknown as FleetClient;
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
