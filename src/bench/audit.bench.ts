/**
 * @module bench/audit
 * The audit log's cost on a call: `gate.execute` of an allowed no-op tool with fleet mode's Redis audit stream
 * (a real redis-server on a Unix socket, AOF with fsync on every write) beside the same gate with the JSONL
 * file audit (both chained). Anchor: the file audit, the same call recording the same record.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, okResult } from "../core/index.js";
import { startRedis } from "../test-support/redis-process.js";
import { createToolgate } from "../toolgate.js";
import { interleaved, p50p99, report } from "./harness.js";

const ROUNDS = 1_000;

export default async function run(): Promise<void> {
  const tool = defineTool<{ text: string }>({
    name: "noop",
    description: "Does nothing",
    kind: "think",
    risk: "low",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    run: async (params) => okResult(params.text),
  });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "tg-audit-bench-"));
  const common = {
    builtins: false as const,
    tools: [tool],
    policy: false as const,
    logger: { warn: () => undefined },
  };
  const fleet = await createToolgate({
    ...common,
    roots: [dir],
    config: { fleet: { redis: redis.url, project: "bench" } },
  });
  const file = await createToolgate({ ...common, roots: [dir], audit: join(dir, "audit.jsonl") });
  const call = { name: "noop", args: { text: "x" } };
  try {
    for (const gate of [fleet, file]) {
      const r = await gate.execute(call);
      if (!r.ok || r.decision !== "allow") throw new Error(`the no-op call was not allowed: ${r.llmContent}`);
    }
    const [ours, anchor] = await interleaved(
      () => fleet.execute(call),
      () => file.execute(call),
      ROUNDS,
    );
    report({
      name: `gate.execute of an allowed no-op, audit record included (${ROUNDS} calls)`,
      ours: `Redis audit stream ${p50p99(ours)}`,
      anchor: `file audit ${p50p99(anchor)}`,
      ratio: ours.p50 / anchor.p50,
      target: "≤ 1.3× at p50",
      pass: ours.p50 / anchor.p50 <= 1.3,
    });
  } finally {
    await fleet.close();
    await file.close();
    await redis.close();
  }
}
