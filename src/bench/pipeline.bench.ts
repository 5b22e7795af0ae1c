/**
 * @module bench/pipeline
 * Pipeline overhead: an allowed no-op tool through `gate.execute` (resolve → validate → policy → execute →
 * shape) against calling the tool's function directly. Target: ≤ 25 µs p50 above the direct call.
 */
import { okResult } from "../core/index.js";
import { createToolgate } from "../toolgate.js";
import { fmt, report, stats } from "./harness.js";
import { noopTool } from "./noop-gate.js";

const BATCH = 200;
const BATCHES = 200;

export default async function run(): Promise<void> {
  const noop = async (params: { text: string }) => okResult(params.text);
  const tool = noopTool();
  const gate = await createToolgate({
    builtins: false,
    tools: [tool],
    policy: false,
    logger: { warn: () => undefined },
  });
  const call = { name: "noop", args: { text: "x" } };
  const check = await gate.execute(call);
  if (!check.ok || check.decision !== "allow")
    throw new Error(`the no-op call was not allowed: ${check.llmContent}`);

  const direct = await perCall(() => noop({ text: "x" }));
  const piped = await perCall(() => gate.execute(call));
  const overhead = piped.p50 - direct.p50;
  report({
    name: "pipeline overhead, allowed no-op tool (p50 per call)",
    ours: `${fmt(piped.p50)} (overhead ${fmt(overhead)})`,
    anchor: `direct call ${fmt(direct.p50)}`,
    ratio: piped.p50 / direct.p50,
    target: "overhead ≤ 25 µs",
    pass: overhead <= 0.025,
  });
  await gate.close();
}

/** Per-call time from batches (timer resolution is too coarse for single sub-µs calls). */
async function perCall(fn: () => Promise<unknown>) {
  for (let i = 0; i < 2000; i++) await fn();
  const samples: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const t0 = performance.now();
    for (let i = 0; i < BATCH; i++) await fn();
    samples.push((performance.now() - t0) / BATCH);
  }
  return stats(samples);
}
