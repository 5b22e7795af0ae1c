/**
 * @module bench/fleet-worker
 * One worker process of the fleet throughput bench (bench/fleet-throughput.bench.ts):
 * `node fleet-worker.js MODE URL CALLS`. It loads, prints `ready`, waits for `go` on stdin, makes CALLS calls
 * one after the other, and prints one JSON line: each call's milliseconds and when it began and ended.
 * - `gate`: `gate.execute` of an allowed no-op in fleet mode — the audit record appended to the project's
 *   stream by the append script (chained, batched with whatever else this process has waiting).
 * - `xadd`: the same record written bare — the audit record such a call makes (taken from a gate auditing
 *   to memory), with the same fields (seq, prev, digest, hash, record) as the stream holds, one `XADD` each.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkHash } from "../core/audit-chain.js";
import { canonicalRecord, MemoryAuditSink, recordDigest } from "../core/index.js";
import { connectFleet } from "../fleet/index.js";
import { NOOP_CALL, noopGate } from "./noop-gate.js";

const [mode, url, calls] = process.argv.slice(2) as [string, string, string];

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "tg-fleet-worker-"));
  let call: () => Promise<unknown>;
  let close: () => Promise<void>;
  if (mode === "gate") {
    const gate = await noopGate(dir, { config: { fleet: { redis: url, project: "bench" } } });
    call = () => gate.execute(NOOP_CALL);
    close = () => gate.close();
  } else {
    const memory = new MemoryAuditSink();
    const gate = await noopGate(dir, { audit: memory });
    await gate.close();
    const text = canonicalRecord(memory.records[0] as object);
    const digest = recordDigest(text);
    const client = await connectFleet({ url });
    let seq = 0;
    let prev = "0".repeat(40);
    call = async () => {
      const hash = linkHash(prev, ++seq, digest);
      await client.xAdd("toolgate:{bench}:direct", "*", {
        seq: String(seq),
        prev,
        digest,
        hash,
        record: text,
      });
      prev = hash;
    };
    close = () => client.close();
  }
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const samples: number[] = [];
  const start = performance.timeOrigin + performance.now();
  for (let i = 0; i < Number(calls); i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  const end = performance.timeOrigin + performance.now();
  process.stdout.write(`${JSON.stringify({ samples, start, end })}\n`);
  await close();
  await rm(dir, { recursive: true, force: true });
}

main().catch((error: Error) => {
  process.stderr.write(`fleet-worker ${mode}: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
