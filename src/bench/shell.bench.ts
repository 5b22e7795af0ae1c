/**
 * @module bench/shell
 * Shell costs: 200 runs of `true` through the whole pipeline against raw `child_process.spawn` (target ≤ 1.3× per
 * call), and analysing + matching a 20-sub-command line with the WASM parser loaded (target ≤ 1 ms p50),
 * beside a naive split-and-compare anchor.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolResult } from "../core/index.js";
import { analyzeCommandSync, createCommandKind } from "../policy/shell/index.js";
import { loadBashParser } from "../policy/shell/parser.js";
import { createToolgate } from "../toolgate.js";
import { fmt, interleaved, measureSync, report } from "./harness.js";

const RUNS = 200;

/** One call of `true` through the whole pipeline: a gate whose policy allows `true`, resolve → … → shape. */
async function makeToolCall(
  root: string,
): Promise<{ call: () => Promise<ToolResult>; close: () => Promise<void> }> {
  const gate = await createToolgate({
    roots: [root],
    policyText: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "true" }\n',
    // Unsandboxed, as the anchor is: the sandboxed call is measured against raw bwrap with the same arguments
    // in `sandbox.bench.ts` (comparing it with raw bash here would charge bwrap's namespaces to the pipeline).
    config: { sandbox: { mode: "off" } },
    logger: { warn: () => undefined },
  });
  return {
    call: () => gate.execute({ name: "shell", args: { command: "true" } }),
    close: () => gate.close(),
  };
}

function rawSpawn(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", "true"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", () => {});
    child.stderr.on("data", () => {});
    child.once("error", reject);
    child.once("close", () => resolve());
  });
}

async function benchSpawn(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-shell-"));
  const { call, close } = await makeToolCall(root);
  try {
    const first = await call();
    if (first.error) throw new Error(`shell tool failed: ${first.llmContent}`);
    // One call each, alternately, so drift in machine load hits both sides alike.
    const [ours, anchor] = await interleaved(call, () => rawSpawn(root), RUNS);
    const ratio = ours.p50 / anchor.p50;
    const p99Ratio = ours.p99 / anchor.p99;
    report({
      name: `shell: ${RUNS} runs of \`true\` through the pipeline (sandbox off, as the anchor), interleaved (p99 ratio ${p99Ratio.toFixed(2)}×)`,
      ours: `p50 ${fmt(ours.p50)} p99 ${fmt(ours.p99)}`,
      anchor: `raw spawn of bash -c true: p50 ${fmt(anchor.p50)} p99 ${fmt(anchor.p99)}`,
      ratio,
      target: "p50 and p99 ≤ 1.3×",
      pass: ratio <= 1.3 && p99Ratio <= 1.3,
    });
  } finally {
    await close();
    await rm(root, { recursive: true, force: true });
  }
}

const LINE = [
  "git status",
  "ls -la src",
  "grep -rn 'TODO' src",
  "cat README.md",
  "echo done",
  "npm run test -- --watch=false",
  "git diff --stat",
  "wc -l src/index.ts",
  "head -n 20 package.json",
  "tail -n 5 CHANGELOG.md",
  "git log --oneline -n 5",
  'echo "building"',
  "npm run build",
  "ls dist",
  "cat dist/index.js",
  "grep -c export dist/index.js",
  "echo 'ok'",
  "git status --short",
  "ls -1",
  "echo finished",
];
const COMMAND = LINE.map((c, i) =>
  i === 0 ? c : `${i % 3 === 0 ? " | " : i % 3 === 1 ? " && " : "; "}${c}`,
).join("");
const PREFIXES = [
  "git status",
  "git diff",
  "git log",
  "ls",
  "grep",
  "cat",
  "echo",
  "npm run",
  "wc",
  "head",
  "tail",
];

async function benchAnalysis(): Promise<void> {
  await loadBashParser();
  const kind = createCommandKind();
  const prefix = kind.operators.prefix!(PREFIXES);
  const check = analyzeCommandSync(COMMAND);
  if (check.commands.length !== 20 || prefix(check, "allow") !== true) {
    throw new Error(
      `bench line did not analyse as 20 allowed sub-commands: ${JSON.stringify(check.commands)}`,
    );
  }
  const ours = measureSync(() => prefix(analyzeCommandSync(COMMAND), "allow"), 2000, 200);

  const split = PREFIXES.map((p) => p.split(" "));
  const naive = () =>
    COMMAND.split(/&&|\|\||;|\|/).every((part) => {
      const words = part.trim().split(/\s+/);
      return split.some((p) => p.every((w, i) => words[i] === w));
    });
  const anchor = measureSync(naive, 2000, 200);
  report({
    name: "shell: analyse + match a 20-sub-command line (p50)",
    ours: `p50 ${fmt(ours.p50)} p99 ${fmt(ours.p99)}`,
    anchor: `naive split + prefix compare (parses nothing): p50 ${fmt(anchor.p50)}`,
    ratio: ours.p50 / anchor.p50,
    target: "p50 ≤ 1 ms (absolute; the anchor does not do the same work)",
    pass: ours.p50 <= 1,
  });
}

export default async function run(): Promise<void> {
  await benchAnalysis();
  await benchSpawn();
}
