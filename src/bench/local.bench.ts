/**
 * @module bench/local
 * The `local` provider's own cost: a 200-token reply of the generated tiny model (src/test-support/tiny-gguf)
 * through toolgate's `createLocalModel().chat()`, beside node-llama-cpp doing the same work directly in the same
 * run — its own loaded copy of the same file, a `LlamaChat` on a context of the same size, the same
 * conversation, greedy decoding — interleaved. Time to first token and the whole reply (tokens per second).
 * A real model's figures need a real model: the tiny one makes the model's own time small, so what is
 * measured here is mostly toolgate's translation and streaming overhead.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalModel } from "../llm/local.js";
import { getLlama, loadRuntime } from "../llm/local-runtime.js";
import { writeTinyModel } from "../test-support/tiny-gguf.js";
import { fmt, interleaved, p50p99, report } from "./harness.js";

const TOKENS = 200;
const ITERATIONS = 31;

export default async function run(): Promise<void> {
  try {
    await loadRuntime();
  } catch (error) {
    console.log(`local: ${(error as Error).message}; nothing measured`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "tg-bench-local-"));
  try {
    const path = join(dir, "tiny.gguf");
    await writeTinyModel(path, { script: Array.from({ length: TOKENS }, (_, i) => `t${i}▁`) });
    const messages = [{ role: "user" as const, content: "count" }];
    const contextSize = 2048;
    // One thread on both sides: llama.cpp's threads spin-wait for each other, which on a shared machine
    // measures the scheduler rather than the work.
    const threads = 1;

    const ours = createLocalModel({
      provider: "local",
      model: path,
      baseUrl: "",
      contextWindow: contextSize,
      threads,
    });
    const runtime = await loadRuntime();
    const llama = await getLlama();
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({ contextSize, threads });
    const chat = new runtime.LlamaChat({ contextSequence: context.getSequence() });

    const first = { ours: [] as number[], anchor: [] as number[] };
    const timed = async (which: "ours" | "anchor", fn: (onText: () => void) => Promise<unknown>) => {
      const t0 = performance.now();
      let seen = false;
      await fn(() => {
        if (!seen) first[which].push(performance.now() - t0);
        seen = true;
      });
    };
    const [whole, anchorWhole] = await interleaved(
      () => timed("ours", (onText) => ours.chat({ messages, onText, signal: new AbortController().signal })),
      () =>
        timed("anchor", (onText) =>
          chat.generateResponse(
            [
              { type: "user", text: "count" },
              { type: "model", response: [] },
            ],
            // Cancellable, as toolgate's call is: the same work.
            { onTextChunk: onText, signal: new AbortController().signal, stopOnAbortSignal: false },
          ),
        ),
      ITERATIONS,
    );
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const ttft = median(first.ours);
    const anchorTtft = median(first.anchor);
    report({
      name: "local model: time to first token (tiny model)",
      ours: fmt(ttft),
      anchor: `${fmt(anchorTtft)} (node-llama-cpp LlamaChat directly)`,
      ratio: ttft / anchorTtft,
      target: "≤ 1.2× node-llama-cpp",
      pass: ttft / anchorTtft <= 1.2,
    });
    const rate = (ms: number) => `${((TOKENS / ms) * 1000).toFixed(0)} tokens/s`;
    report({
      name: `local model: a ${TOKENS}-token reply (tiny model)`,
      ours: `${rate(whole.p50)} (${p50p99(whole)})`,
      anchor: `${rate(anchorWhole.p50)} (${p50p99(anchorWhole)}, node-llama-cpp LlamaChat directly)`,
      ratio: whole.p50 / anchorWhole.p50,
      target: "≤ 1.1× node-llama-cpp",
      pass: whole.p50 / anchorWhole.p50 <= 1.1,
    });
    await context.dispose();
    await model.dispose();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
