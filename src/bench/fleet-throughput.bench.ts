/**
 * @module bench/fleet-throughput
 * Fleet throughput (issue 33): 8 worker processes each making allowed no-op calls through `gate.execute` in
 * fleet mode, every call's audit record appended to the project's stream (a real redis-server on a Unix
 * socket, AOF with fsync on every write) — calls per second over the wall time from the first call to the
 * last. Anchor: the same 8 processes writing the same records to the same server with one bare `XADD` each
 * (same fields and sizes, bench/fleet-worker.ts). Each call waits for its record either way. Rounds
 * alternate between the two so load on the machine hits both alike. Per-call p50/p99 beside the rate.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { verifyChain } from "../core/index.js";
import { connectFleet, fleetKeys, RedisAuditLog } from "../fleet/index.js";
import { startRedis } from "../test-support/redis-process.js";
import { p50p99, report, stats } from "./harness.js";

const WORKERS = 8;
const CALLS = 250;
const ROUNDS = 2;
const WORKER = join(dirname(fileURLToPath(import.meta.url)), "fleet-worker.js");

interface Result {
  samples: number[];
  start: number;
  end: number;
}

/** Starts the workers, lets them go at once once all are loaded, and collects their results. */
async function round(mode: "gate" | "xadd", url: string): Promise<{ perSecond: number; samples: number[] }> {
  const children: ChildProcess[] = [];
  const lines = Array.from({ length: WORKERS }, () => {
    const child = spawn(process.execPath, [WORKER, mode, url, String(CALLS)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(child);
    const out = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    const next = async () => {
      const { value, done } = await out.next();
      if (done) throw new Error(`a ${mode} worker exited (${child.exitCode ?? child.signalCode})`);
      return value as string;
    };
    return next;
  });
  try {
    for (const next of lines)
      if ((await next()) !== "ready") throw new Error(`a ${mode} worker is not ready`);
    for (const child of children) child.stdin?.end("go\n");
    const results = (await Promise.all(lines.map((next) => next()))).map((l) => JSON.parse(l) as Result);
    const wall = Math.max(...results.map((r) => r.end)) - Math.min(...results.map((r) => r.start));
    return { perSecond: (WORKERS * CALLS) / (wall / 1000), samples: results.flatMap((r) => r.samples) };
  } catch (error) {
    // A worker that failed leaves the others waiting for "go" on stdin: stop them, or the round never ends.
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    throw error;
  } finally {
    await Promise.all(
      children.map((c) =>
        c.exitCode === null && c.signalCode === null
          ? new Promise((resolve) => c.once("exit", resolve))
          : undefined,
      ),
    );
  }
}

export default async function run(): Promise<void> {
  const redis = await startRedis();
  const client = await connectFleet({ url: redis.url });
  try {
    const ours = { calls: 0, seconds: 0, samples: [] as number[] };
    const anchor = { calls: 0, seconds: 0, samples: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const [mode, into] of [
        ["gate", ours],
        ["xadd", anchor],
      ] as const) {
        const r = await round(mode, redis.url);
        into.calls += WORKERS * CALLS;
        into.seconds += (WORKERS * CALLS) / r.perSecond;
        into.samples.push(...r.samples);
      }
    }
    // The records the gates wrote are one chain with no gap: throughput did not cost a link.
    const log = new RedisAuditLog({ client, project: "bench" });
    const verdict = await verifyChain(log.entries(), await log.trimmed());
    const stored = await client.xLen(fleetKeys("bench").audit);
    if (!verdict.ok || stored !== ROUNDS * WORKERS * (CALLS + 1))
      throw new Error(`the audit stream holds ${stored} records, chain ${JSON.stringify(verdict)}`);
    const rate = ours.calls / ours.seconds;
    const bare = anchor.calls / anchor.seconds;
    report({
      name: `fleet throughput, ${WORKERS} worker processes × ${CALLS} calls × ${ROUNDS} rounds, audit stream chained`,
      ours: `gate.execute + audit ${rate.toFixed(0)} calls/s (per call ${p50p99(stats(ours.samples))})`,
      anchor: `bare XADD of the same records ${bare.toFixed(0)}/s (per call ${p50p99(stats(anchor.samples))})`,
      ratio: rate / bare,
      target: "≥ 0.8× the anchor's rate",
      pass: rate / bare >= 0.8,
    });
  } finally {
    await client.close();
    await redis.close();
  }
}
