/**
 * @module test-support/redis-cluster
 * A real Redis Cluster of three masters (Debian's `redis-server`) on free loopback ports, each in its own temp
 * folder with `appendonly yes`: started with `--cluster-enabled yes`, joined by `redis-cli --cluster create`,
 * ready once every node reports `cluster_state:ok` and knows all three masters (polled, never slept for).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const SERVER = process.env.TOOLGATE_TEST_REDIS_SERVER ?? "/usr/bin/redis-server";
const CLI = process.env.TOOLGATE_TEST_REDIS_CLI ?? "/usr/bin/redis-cli";
const run = promisify(execFile);

/** A running test cluster. */
export interface TestCluster {
  /** `redis://127.0.0.1:PORT` of every master. */
  urls: string[];
  ports: number[];
  close(): Promise<void>;
}

/** `count` distinct free loopback ports, all held at once while chosen so none repeats. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Starts one node; resolves once it accepts connections, rejects with its log when it exits first. */
function startNode(dir: string, port: number, busPort: number): Promise<ChildProcess> {
  const child = spawn(
    SERVER,
    [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--cluster-enabled",
      "yes",
      "--cluster-port",
      String(busPort),
      "--cluster-config-file",
      join(dir, "nodes.conf"),
      "--cluster-node-timeout",
      "5000",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--save",
      "",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("Ready to accept connections") || log.includes("ready to accept connections")) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server on ${port} exited (${code}):\n${log}`)));
  });
}

/** Reads `redis-cli CLUSTER INFO` of one node as fields. */
async function clusterInfo(port: number): Promise<Record<string, string>> {
  const { stdout } = await run(CLI, ["-h", "127.0.0.1", "-p", String(port), "cluster", "info"]);
  return Object.fromEntries(
    stdout
      .split(/\r?\n/)
      .filter((line) => line.includes(":"))
      .map((line) => line.split(":", 2) as [string, string]),
  );
}

/**
 * Starts three masters, joins them (slots split evenly) and waits for every node to say the cluster is ok.
 * A port taken between choosing and binding (another process was quicker) starts over with new ports.
 * @example const cluster = await startCluster(); ... await cluster.close();
 */
export async function startCluster(): Promise<TestCluster> {
  for (let attempt = 1; ; attempt++) {
    const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), "toolgate-cluster-"))));
    const ports = await freePorts(6);
    const nodes: ChildProcess[] = [];
    const close = async () => {
      await Promise.all(
        nodes.map((child) => {
          if (child.exitCode !== null || child.signalCode !== null) return undefined;
          const exited = new Promise((resolve) => child.once("exit", resolve));
          child.kill("SIGKILL");
          return exited;
        }),
      );
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    };
    try {
      const started = await Promise.allSettled(
        dirs.map((dir, i) => startNode(dir, ports[i] as number, ports[i + 3] as number)),
      );
      for (const s of started) if (s.status === "fulfilled") nodes.push(s.value);
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const masters = ports.slice(0, 3);
      await run(CLI, [
        "--cluster",
        "create",
        ...masters.map((p) => `127.0.0.1:${p}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ]);
      for (;;) {
        const infos = await Promise.all(masters.map(clusterInfo));
        if (infos.every((i) => i.cluster_state === "ok" && i.cluster_known_nodes === "3")) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { urls: masters.map((p) => `redis://127.0.0.1:${p}`), ports: masters, close };
    } catch (error) {
      await close();
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}
