/**
 * @module test-support/redis-process
 * A real `redis-server` (Debian's) started on a Unix socket in a fresh temp folder with `appendonly yes` and
 * `appendfsync always` (the durability fleet mode documents), ready when the server says so on its log,
 * stopped and removed by `close()`. No test runner here: the benchmarks start one too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running test server. */
export interface TestRedis {
  /** `unix:///tmp/…/redis.sock`: the form `[fleet] redis` takes for a socket. */
  url: string;
  /** The socket path. */
  socket: string;
  dir: string;
  readonly process: ChildProcess;
  /**
   * Kills the server (SIGKILL) and starts it again on the same socket and folder: its AOF is all it keeps.
   * `whileDown` runs between (the server is away meanwhile).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Where Debian installs the server; `TOOLGATE_TEST_REDIS_SERVER` overrides it. */
const SERVER = process.env.TOOLGATE_TEST_REDIS_SERVER ?? "/usr/bin/redis-server";

/**
 * Starts a server; resolves once it logs that it accepts connections, rejects when it exits first.
 * @example const redis = await startRedis(); ... await redis.close();
 */
export async function startRedis(extra: string[] = []): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-redis-"));
  const socket = join(dir, "redis.sock");
  const args = [
    "--port",
    "0",
    "--unixsocket",
    socket,
    "--unixsocketperm",
    "700",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    "--loglevel",
    "notice",
    ...extra,
  ];
  let child = await spawnServer(args);
  return {
    url: `unix://${socket}`,
    socket,
    dir,
    get process() {
      return child;
    },
    async restart(whileDown) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      await whileDown?.();
      child = await spawnServer(args);
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `redis-server ARGS`; resolves once it logs that it accepts connections, rejects when it exits first. */
async function spawnServer(args: string[]): Promise<ChildProcess> {
  const child = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("ready to accept connections")) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${log}`)),
    );
  });
  child.stdout?.resume();
  return child;
}
