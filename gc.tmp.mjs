import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolgate } from "/work/main/dist/index.js";
import { bigPolicy } from "/work/main/dist/bench/gate-policy.bench.js";
const root = await mkdtemp(join(tmpdir(), "toolgate-bench-gate-"));
const logger = { warn: () => {} };
const big = await createToolgate({ roots: [root], policyText: bigPolicy(), logger });
const call = { name: "shell", args: { command: "git status --short" } };
for (let i = 0; i < 3000; i++) await big.check(call);
const N = 20000; const t = [];
for (let i = 0; i < N; i++) { const s = performance.now(); await big.check(call); t.push(performance.now() - s); }
t.sort((a, b) => a - b); console.log("p50 µs", (t[N >> 1] * 1000).toFixed(1), "p99", (t[Math.floor(N * 0.99)] * 1000).toFixed(1));
await big.close();
