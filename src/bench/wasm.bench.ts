/**
 * @module bench/wasm
 * What the file tools' hand-written WebAssembly (`newlines.wat`, `prefix-lines.wat`) saves: grep and
 * read_file called through `gate.execute`, with the modules and with them turned off (the plain TypeScript
 * path they take where the modules cannot compile), alternating call by call in one process. The anchor is
 * the same call without the modules; a module earns its place where it saves ≥ 10 % of the call's time
 * (p50 ratio ≤ 0.90×) in the common case (issue 28, item 11).
 */
import { spawn } from "node:child_process";
import { realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallResult } from "../core/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { RipgrepOutputParser, ripgrepArgs } from "../tools/files/grep-backends.js";
import { joinShownParts, type ShownPart } from "../tools/files/prefix-lines.js";
import { setWasmModules } from "../tools/files/wasm.js";
import { findBundledRipgrep } from "../tools/grep.js";
import { seededRandom } from "../utils/index.js";
import { grepCorpus, hugeFile, sourceFile } from "./file-corpora.js";
import { fmt, report, type Stats, stats } from "./harness.js";

/** Its own folder: the files bench removes `toolgate-bench-files` when it ends. */
const benchDir = join(tmpdir(), "toolgate-bench-wasm");

/** Saves at least this share of the call's time at p50, or the module goes. */
const MIN_SAVING = 0.1;

interface Case {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  rounds: number;
  /** Whether the rule is decided here (the common case), or the figure is shown beside it. */
  decides: boolean;
}

/** The call's result; throws when it failed, so a failure is never timed as a fast call. */
async function call(gate: Toolgate, tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const result = await gate.execute({ name: tool, args });
  if (!result.ok) throw new Error(`${tool} failed in the bench: ${result.llmContent}`);
  return result;
}

/**
 * Times the call with the modules and without, alternating which goes first each round so garbage left by
 * one side is collected as often during the other. Also says whether both sides gave the same text.
 */
async function bothWays(run: () => Promise<string>, rounds: number): Promise<[Stats, Stats, boolean]> {
  setWasmModules(true);
  const withModules = await run();
  setWasmModules(false);
  const same = (await run()) === withModules;
  const on: number[] = [];
  const off: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      for (const state of i % 2 === 0 ? [true, false] : [false, true]) {
        setWasmModules(state);
        const t0 = performance.now();
        await run();
        (state ? on : off).push(performance.now() - t0);
      }
    }
  } finally {
    setWasmModules(true);
  }
  return [stats(on), stats(off), same];
}

/** ripgrep's output for a search, in the pieces its pipe gave (as the grep tool's parser gets them). */
function ripgrepOutput(rg: string, pattern: string, target: string): Promise<Buffer[]> {
  const args = ripgrepArgs({ pattern, caseSensitive: true, includeHidden: false, target });
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolve(chunks));
  });
}

/**
 * The part of a grep call the modules serve, alone and in process: parsing ripgrep's output (file ends and
 * line counts: `newlines.wat`) and laying out every line behind its path (`prefix-lines.wat`). The upper
 * bound of what they can save of the call.
 */
function parseAndLayOut(chunks: readonly Buffer[], root: string): string {
  const parts: ShownPart[] = [];
  const parser = new RipgrepOutputParser(
    () => true,
    (file, lines, count) => parts.push({ prefix: `${file.slice(root.length + 1)}:`, lines, count }) > 0,
  );
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return joinShownParts(parts, 500);
}

/** A source file of ordinary size: 600 lines, ~20 KB. */
async function ordinaryFile(): Promise<string> {
  const random = seededRandom(7);
  let text = "";
  while (text.split("\n").length <= 600) text += sourceFile(random);
  const file = join(benchDir, "ordinary.ts");
  await writeFile(file, `${text.split("\n").slice(0, 600).join("\n")}\n`);
  return "ordinary.ts";
}

export default async function runWasmBench(): Promise<void> {
  await grepCorpus(benchDir);
  await hugeFile(benchDir);
  const ordinary = await ordinaryFile();
  const gate = await createToolgate({
    roots: [benchDir],
    cwd: benchDir,
    config: {},
    policyText: 'default = "allow"\n',
    logger: { warn: () => undefined },
  });
  // `value` in one feature folder of the repository-shaped tree (50 files) is 1,000 lines; `return` in the
  // whole tree ~42,000.
  const folder = { pattern: "value", caseSensitive: true, path: "grep/src/feature1" };
  const tree = { pattern: "return", caseSensitive: true, path: "grep" };
  const cases: Case[] = [
    { name: "grep, one folder, default maxMatches", tool: "grep", args: folder, rounds: 60, decides: true },
    {
      name: "grep, one folder, every match shown",
      tool: "grep",
      args: { ...folder, maxMatches: 2_000 },
      rounds: 60,
      decides: true,
    },
    {
      name: "grep, whole tree, every match shown",
      tool: "grep",
      args: { ...tree, maxMatches: 100_000 },
      rounds: 20,
      decides: false,
    },
    {
      name: "read_file, a whole 600-line source file",
      tool: "read_file",
      args: { path: ordinary },
      rounds: 300,
      decides: true,
    },
    {
      name: "read_file lines 300–360 of the same file",
      tool: "read_file",
      args: { path: ordinary, startLine: 300, endLine: 360 },
      rounds: 300,
      decides: true,
    },
    {
      name: "read_file lines 100,000–100,100 of a 216 MB file (8 MB in)",
      tool: "read_file",
      args: { path: "huge.txt", startLine: 100_000, endLine: 100_100 },
      rounds: 60,
      decides: false,
    },
    {
      name: "read_file lines 2,600,000–2,600,100 of the same file (208 MB in)",
      tool: "read_file",
      args: { path: "huge.txt", startLine: 2_600_000, endLine: 2_600_100 },
      rounds: 15,
      decides: false,
    },
  ];
  const rg = await findBundledRipgrep();
  if (!rg) throw new Error("@vscode/ripgrep is not installed; the bench needs it");
  const root = await realpath(benchDir);
  const inner: [string, string, string, number][] = [
    ["1,000 matches", "value", "grep/src/feature1", 300],
    ["42,402 matches", "return", "grep", 40],
  ];
  try {
    for (const [what, pattern, path, rounds] of inner) {
      const chunks = await ripgrepOutput(rg, pattern, join(root, path));
      const [on, off, same] = await bothWays(async () => parseAndLayOut(chunks, root), rounds);
      report({
        name: `the modules' part of grep alone (parse ripgrep's output, lay out every line), ${what}, in process, ${rounds} pairs, same text both ways: ${same}`,
        ours: `with the modules p50 ${fmt(on.p50)} p99 ${fmt(on.p99)}`,
        anchor: `plain TypeScript p50 ${fmt(off.p50)} p99 ${fmt(off.p99)}`,
        ratio: on.p50 / off.p50,
        target: "shown beside the calls: the most the modules can save of one",
        pass: same,
      });
    }
    for (const c of cases) {
      const { data } = await call(gate, c.tool, c.args);
      const matches = (data as { matches?: number } | undefined)?.matches;
      const shown = matches === undefined ? "" : `, ${matches} matches`;
      const text = async () => (await call(gate, c.tool, c.args)).llmContent;
      const [on, off, same] = await bothWays(text, c.rounds);
      const ratio = on.p50 / off.p50;
      report({
        name: `${c.name}${shown}, ${c.rounds} pairs, same text both ways: ${same}`,
        ours: `with the modules p50 ${fmt(on.p50)} p99 ${fmt(on.p99)}`,
        anchor: `plain TypeScript p50 ${fmt(off.p50)} p99 ${fmt(off.p99)}`,
        ratio,
        target: c.decides
          ? `the common case: kept if p50 ≤ ${(1 - MIN_SAVING).toFixed(2)}× (saves ≥ 10 %), same text`
          : "shown beside the common case (not decided here), same text",
        pass: same && (!c.decides || ratio <= 1 - MIN_SAVING),
      });
    }
  } finally {
    await gate.close();
    if (!process.env.TOOLGATE_BENCH_KEEP) await rm(benchDir, { recursive: true, force: true });
  }
}
