/**
 * @module bench/files
 * File tool benchmarks against their anchors in the same run: grep (ripgrep backend) vs raw `rg -n`, the JS
 * fallback vs rg, glob vs tinyglobby (and the same set as `rg --files`), and read_file's peak memory for a
 * line range of a 50 MB file, measured in child processes.
 */
import { execFile, spawn } from "node:child_process";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { glob as tinyglobby } from "tinyglobby";
import { createGlobTool } from "../tools/glob.js";
import { createGrepTool, findBundledRipgrep } from "../tools/grep.js";
import { Workspace } from "../workspace/index.js";
import { fmt, measure, report, type Stats, stats } from "./harness.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const benchDir = join(tmpdir(), "toolgate-bench-files");
const signal = new AbortController().signal;

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  "const let function return import export from value index result error data config path file async await".split(
    " ",
  );

/** 50,000 files, ~200 MB, 500 folders; `ignored/` and `*.log` are git-ignored; ~1 line in 1000 holds the needle. */
async function grepCorpus(): Promise<string> {
  const dir = join(benchDir, "grep");
  if (await exists(join(dir, ".complete"))) return dir;
  await rm(dir, { recursive: true, force: true });
  const random = rng(42);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ".gitignore"), "ignored/\n*.log\n");
  for (let d = 0; d < 500; d++) {
    const folder = join(dir, d % 50 === 0 ? "ignored" : `pkg${d % 10}`, `mod${d}`);
    await mkdir(folder, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let f = 0; f < 100; f++) {
      const lines: string[] = [];
      for (let size = 0; size < 4000; ) {
        const words = Array.from(
          { length: 6 + Math.floor(random() * 6) },
          () => WORDS[Math.floor(random() * WORDS.length)],
        );
        if (random() < 0.001) words.push("needle_token");
        const line = words.join(" ");
        lines.push(line);
        size += line.length + 1;
      }
      const ext = f % 20 === 0 ? "log" : f % 2 === 0 ? "ts" : "js";
      writes.push(writeFile(join(folder, `file${f}.${ext}`), `${lines.join("\n")}\n`));
    }
    await Promise.all(writes);
  }
  await writeFile(join(dir, ".complete"), "");
  return dir;
}

/** 100,000 empty files in 1,000 folders, a tenth of them under git-ignored `vendor/`. */
async function globCorpus(): Promise<string> {
  const dir = join(benchDir, "glob");
  if (await exists(join(dir, ".complete"))) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ".gitignore"), "vendor/\n");
  for (let d = 0; d < 1000; d++) {
    const folder = join(dir, d % 10 === 0 ? "vendor" : `src${d % 7}`, `m${d}`, "lib");
    await mkdir(folder, { recursive: true });
    await Promise.all(
      Array.from({ length: 100 }, (_, f) =>
        writeFile(join(folder, `f${f}.${f % 3 === 0 ? "js" : "ts"}`), ""),
      ),
    );
  }
  await writeFile(join(dir, ".complete"), "");
  return dir;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Times two functions alternately (one warm-up each), so cache state and machine noise hit both alike.
 */
async function interleaved(
  ours: () => unknown,
  anchor: () => unknown,
  iterations: number,
): Promise<[Stats, Stats]> {
  await ours();
  await anchor();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let t0 = performance.now();
    await ours();
    a.push(performance.now() - t0);
    t0 = performance.now();
    await anchor();
    b.push(performance.now() - t0);
  }
  return [stats(a), stats(b)];
}

/** Runs rg and collects stdout, as a caller of raw ripgrep would. */
function rawRg(rg: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

async function benchGrep(rg: string): Promise<void> {
  const dir = await grepCorpus();
  const workspace = await Workspace.create([dir]);
  const ours = createGrepTool({ workspace, ripgrepPath: rg });
  const js = createGrepTool({ workspace, ripgrepPath: null });
  const params = { pattern: "needle_token", caseSensitive: true, maxMatches: 20_000 };
  const rawArgs = ["-n", "--no-require-git", "--regexp", "needle_token", "."];
  const oursOut = (await ours.build(params).execute(signal)).llmContent;
  const jsOut = (await js.build(params).execute(signal)).llmContent;
  const rawOut = await rawRg(rg, rawArgs, dir);
  const key = (line: string) => line.replace(/^\.\//, "").replace(/^([^:]+:\d+):.*$/, "$1");
  const rawSet = rawOut.trim().split("\n").map(key).sort().join("\n");
  const oursSet = oursOut.trim().split("\n").map(key).sort().join("\n");
  const jsSet = jsOut.trim().split("\n").map(key).sort().join("\n");
  const count = rawSet.split("\n").length;
  const [t, a] = await interleaved(
    () => ours.build(params).execute(signal),
    () => rawRg(rg, rawArgs, dir),
    9,
  );
  const ratio = t.p50 / a.p50;
  report({
    name: `grep (rg backend), 50k files / 200 MB, ${count} matches, identical: ${oursSet === rawSet}`,
    ours: fmt(t.p50),
    anchor: `raw rg -n ${fmt(a.p50)}`,
    ratio,
    target: "≤ 1.15×, identical matches",
    pass: ratio <= 1.15 && oursSet === rawSet,
  });
  const j = await measure(() => js.build(params).execute(signal), 3, 1);
  // (the rg anchor was measured just above, interleaved with ours)
  const jsRatio = j.p50 / a.p50;
  report({
    name: `grep JS fallback, same corpus, identical: ${jsSet === rawSet}`,
    ours: fmt(j.p50),
    anchor: `raw rg -n ${fmt(a.p50)}`,
    ratio: jsRatio,
    target: "≤ 12×, identical matches",
    pass: jsRatio <= 12 && jsSet === rawSet,
  });
}

async function benchGlob(rg: string): Promise<void> {
  const dir = await globCorpus();
  const workspace = await Workspace.create([dir]);
  const tool = createGlobTool({ workspace });
  const params = { pattern: "**/*.ts", maxResults: 1_000_000 };
  const ours = ((await tool.build(params).execute(signal)).data as { files: string[] }).files.sort();
  const anchorFn = () => tinyglobby(["**/*.ts"], { cwd: dir, ignore: ["vendor/**"] });
  const anchor = (await anchorFn()).sort();
  const { stdout } = await run(rg, ["--files", "--no-require-git", "-g", "*.ts"], {
    cwd: dir,
    maxBuffer: 64 << 20,
  });
  const rgSet = stdout.trim().split("\n").sort();
  const same = ours.join("\n") === anchor.join("\n") && ours.join("\n") === rgSet.join("\n");
  // Timed as a model calls it (default maxResults); the full set was compared above.
  const [t, a] = await interleaved(() => tool.build({ pattern: "**/*.ts" }).execute(signal), anchorFn, 15);
  const ratio = t.p50 / a.p50;
  report({
    name: `glob **/*.ts over 100k files (${ours.length} matches; same set as tinyglobby and rg --files: ${same})`,
    ours: fmt(t.p50),
    anchor: `tinyglobby ${fmt(a.p50)}`,
    ratio,
    target: "≤ 1.2×, same set",
    pass: ratio <= 1.2 && same,
  });
}

/** Peak RSS (MB) of a child Node process running `code` (an ES module body). */
async function childPeakRss(code: string): Promise<number> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code], { maxBuffer: 1 << 20 });
  return Number(stdout.trim()) / 1024;
}

async function benchReadRange(): Promise<void> {
  const file = join(benchDir, "big.txt");
  if (!(await exists(file))) {
    const line = `${"x".repeat(70)}`;
    const chunk: string[] = [];
    for (let i = 1; i <= 700_000; i++) chunk.push(`${String(i).padStart(7, "0")} ${line}`);
    await writeFile(file, `${chunk.join("\n")}\n`);
  }
  const size = (await stat(file)).size;
  const ws = pathToFileURL(join(here, "..", "workspace", "index.js")).href;
  const tool = pathToFileURL(join(here, "..", "tools", "read-file.js")).href;
  // VmHWM is the peak RSS of this process image; getrusage's maxRSS would include the forking parent's.
  const report_ =
    'process.stdout.write((await import("node:fs")).readFileSync("/proc/self/status","utf8").match(/VmHWM:\\s+(\\d+)/)[1]);';
  const idle = await childPeakRss(report_);
  const loaded = await childPeakRss(
    `await import(${JSON.stringify(ws)}); await import(${JSON.stringify(tool)}); ${report_}`,
  );
  const reading = await childPeakRss(
    `const { Workspace } = await import(${JSON.stringify(ws)});
     const { createReadFileTool } = await import(${JSON.stringify(tool)});
     const t = createReadFileTool({ workspace: await Workspace.create([${JSON.stringify(benchDir)}]) });
     const r = await t.build({ path: "big.txt", startLine: 600000, endLine: 600100 }).execute(new AbortController().signal);
     if (r.error || r.llmContent.split("\\n").length !== 102) throw new Error("wrong range");
     ${report_}`,
  );
  const above = reading - idle;
  report({
    name: `read_file lines 600,000–600,100 of a ${(size / 1e6).toFixed(0)} MB file, peak RSS above idle node (modules alone: +${(loaded - idle).toFixed(1)} MB)`,
    ours: `${reading.toFixed(1)} MB (+${above.toFixed(1)} MB)`,
    anchor: `idle node ${idle.toFixed(1)} MB`,
    target: "≤ 16 MB above idle",
    pass: above <= 16,
  });
}

export default async function runFilesBench(): Promise<void> {
  const rg = await findBundledRipgrep();
  if (!rg) throw new Error("@vscode/ripgrep is not installed; the file benchmarks need it");
  try {
    await benchGrep(rg);
    await benchGlob(rg);
    await benchReadRange();
  } finally {
    if (!process.env.TOOLGATE_BENCH_KEEP) await rm(benchDir, { recursive: true, force: true });
  }
}
