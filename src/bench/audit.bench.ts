/**
 * @module bench/audit
 * The audit log's cost on a call: `gate.execute` of an allowed no-op tool with fleet mode's Redis audit stream
 * (a real redis-server on a Unix socket) beside the same gate with the JSONL file audit (both chained).
 * - The figure: the Redis stream with the durability docs/fleet.md asks for (AOF, fsync on every
 *   write, before the reply) against the file audit (written, never synced: it survives the process, not
 *   the machine). The anchor does less than we do; most of the gap is the server's fsync.
 * - The same durability on both sides: Redis with `appendfsync everysec` (the record survives the process;
 *   a second's worth may be lost with the machine) against the file audit; and Redis with fsync on every
 *   write against the file audit synced (`fdatasync`) after every record.
 */
import { closeSync, fdatasyncSync, openSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileAuditSink } from "../core/index.js";
import { startRedis } from "../test-support/redis-process.js";
import { interleaved, p50p99, report } from "./harness.js";
import { NOOP_CALL, noopGate } from "./noop-gate.js";

const ROUNDS = 1_000;

/** The file audit, each record synced to disk before the call returns (the anchor with fsync per write). */
function syncedFileAudit(path: string): FileAuditSink {
  const sink = new FileAuditSink(path);
  const write = sink.write.bind(sink);
  sink.write = (record) => {
    write(record);
    const fd = openSync(path, "r");
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  return sink;
}

export default async function run(): Promise<void> {
  const always = await startRedis();
  const everysec = await startRedis(["--appendfsync", "everysec"]);
  const dir = await mkdtemp(join(tmpdir(), "tg-audit-bench-"));
  const fleet = (url: string) => noopGate(dir, { config: { fleet: { redis: url, project: "bench" } } });
  const gates = {
    always: await fleet(always.url),
    everysec: await fleet(everysec.url),
    file: await noopGate(dir, { audit: join(dir, "audit.jsonl") }),
    synced: await noopGate(dir, { audit: syncedFileAudit(join(dir, "synced.jsonl")) }),
  };
  const call = (name: keyof typeof gates) => () => gates[name].execute(NOOP_CALL);
  try {
    const [ours, anchor, ...more] = await interleaved(
      call("always"),
      call("file"),
      ROUNDS,
      call("everysec"),
      call("synced"),
    );
    const [oursLazy, anchorSynced] = more as [typeof ours, typeof ours];
    const line = (name: string, a: typeof ours, b: typeof ours, oursIs: string, anchorIs: string) =>
      report({
        name: `gate.execute of an allowed no-op, audit record included (${ROUNDS} calls), ${name}`,
        ours: `${oursIs} ${p50p99(a)}`,
        anchor: `${anchorIs} ${p50p99(b)}`,
        ratio: a.p50 / b.p50,
        target: "≤ 1.3× at p50",
        pass: a.p50 / b.p50 <= 1.3,
      });
    line("the issue's figure", ours, anchor, "Redis stream, fsync per write", "file audit, not synced");
    line("neither synced per record", oursLazy, anchor, "Redis stream, fsync every second", "file audit");
    line(
      "both synced per record",
      ours,
      anchorSynced,
      "Redis stream, fsync per write",
      "file audit + fdatasync",
    );
  } finally {
    for (const gate of Object.values(gates)) await gate.close();
    await always.close();
    await everysec.close();
    await rm(dir, { recursive: true, force: true });
  }
}
