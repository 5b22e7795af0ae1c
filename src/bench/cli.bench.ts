/**
 * @module bench/cli
 * Whole-process figures for the `toolgate` command, each process started fresh and timed from spawn to exit,
 * all kinds interleaved round by round: `toolgate --help` and `toolgate call read_file` against `node -e 0`
 * (the floor any Node program pays; the ratio is the start-up cost we add), `call read_file` beside `cat`
 * and `call grep` beside `rg` with the same arguments (informational: those anchors start no Node at all),
 * and the peak RSS of `call read_file` above an idle `node -e 0`.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ripgrepArgs } from "../tools/files/grep-backends.js";
import { findBundledRipgrep } from "../tools/grep.js";
import { fmt, report, type Stats, stats } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
// The bundled command the package's `bin` names (`npm run build` makes it).
const MAIN = join(here, "..", "bin", "toolgate.js");
const PRELOAD = join(here, "peak-rss.js");
const ROUNDS = 15;

/** Runs a command to its end; resolves with its exit code and wall time (ms). Output is drained. */
function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env });
    child.stdout.on("data", () => undefined);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${command} ${args.join(" ")} exited with ${code}: ${stderr}`));
      else resolve({ code, ms });
    });
  });
}

async function peakRssMb(args: string[], env: NodeJS.ProcessEnv, file: string): Promise<number> {
  await rm(file, { force: true });
  await timed(process.execPath, ["--import", PRELOAD, ...args], { ...env, TOOLGATE_BENCH_RSS: file });
  return Number((await readFile(file, "utf8")).trim()) / 1024;
}

export default async function run(): Promise<void> {
  const rg = await findBundledRipgrep();
  if (!rg) throw new Error("@vscode/ripgrep is not installed; the CLI benchmark needs it");
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolgate-bench-cli-")));
  try {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i}: return value_${i};`).join("\n");
    await writeFile(join(dir, "notes.txt"), `${lines}\n`);
    for (let i = 0; i < 40; i++) {
      await mkdir(join(dir, "src", `m${i % 10}`), { recursive: true });
      await writeFile(join(dir, "src", `m${i % 10}`, `f${i}.ts`), `${lines}\n`);
    }
    // No config or policy lookups outside the temp folder; the built-in default policy applies.
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, ".config"), HOME: dir };
    const node = process.execPath;
    const kinds: [string, string, string[]][] = [
      ["node -e 0", node, ["-e", "0"]],
      ["toolgate --help", node, [MAIN, "--help"]],
      [
        "toolgate call read_file",
        node,
        [MAIN, "--workspace", dir, "call", "read_file", '{"path":"notes.txt"}'],
      ],
      ["cat", "cat", [join(dir, "notes.txt")]],
      [
        "toolgate call grep",
        node,
        [MAIN, "--workspace", dir, "call", "grep", '{"pattern":"return","caseSensitive":true,"path":"src"}'],
      ],
      [
        "rg",
        rg,
        ripgrepArgs({
          pattern: "return",
          caseSensitive: true,
          includeHidden: false,
          target: join(dir, "src"),
        }),
      ],
    ];
    const samples = kinds.map(() => [] as number[]);
    for (let round = -1; round < ROUNDS; round++) {
      for (let k = 0; k < kinds.length; k++) {
        const [, command, args] = kinds[k]!;
        const { ms } = await timed(command, args, env);
        if (round >= 0) samples[k]!.push(ms);
      }
    }
    const s = Object.fromEntries(kinds.map(([name], k) => [name, stats(samples[k]!)])) as Record<
      string,
      Stats
    >;
    const pp = (x: Stats) => `p50 ${fmt(x.p50)} p99 ${fmt(x.p99)}`;
    const idle = s["node -e 0"]!;
    const line = (name: string, target: number, extra = "") => {
      const ours = s[name]!;
      const ratio = ours.p50 / idle.p50;
      report({
        name: `${name}, whole process (${ROUNDS} interleaved runs)${extra}`,
        ours: pp(ours),
        anchor: `node -e 0: ${pp(idle)}`,
        ratio,
        target: `p50 ≤ ${target}× node -e 0`,
        pass: ratio <= target,
      });
    };
    line("toolgate --help", 1.5);
    line("toolgate call read_file", 2.5, `; cat alone: ${pp(s.cat!)}`);
    const grep = s["toolgate call grep"]!;
    const rgStats = s.rg!;
    const budget = 2.5 * idle.p50 + rgStats.p50;
    report({
      name: `toolgate call grep (40 files, 16,000 matching lines, 500 shown), whole process`,
      ours: pp(grep),
      anchor: `rg, same arguments: ${pp(rgStats)}; node -e 0: ${fmt(idle.p50)}`,
      ratio: grep.p50 / (idle.p50 + rgStats.p50),
      target: "p50 ≤ 2.5× node -e 0 + rg's p50 (absolute: rg starts no Node; ratio is to node -e 0 + rg)",
      pass: grep.p50 <= budget,
    });
    const rssFile = join(dir, "rss.txt");
    const idleRss = await peakRssMb(["-e", "0"], env, rssFile);
    const callRss = await peakRssMb(
      [MAIN, "--workspace", dir, "call", "read_file", '{"path":"notes.txt"}'],
      env,
      rssFile,
    );
    report({
      name: "toolgate call read_file, peak RSS (VmHWM)",
      ours: `${callRss.toFixed(1)} MB (+${(callRss - idleRss).toFixed(1)} MB)`,
      anchor: `node -e 0: ${idleRss.toFixed(1)} MB`,
      target: "≤ idle node + 35 MB",
      pass: callRss - idleRss <= 35,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
