/**
 * @module bench/git-config
 * What reading the repository's git config costs a shell command's policy preparation (issue 13 item 2):
 * `git status` in a sub-folder prepared by the command kind wrapped with `withGitConfigCheck` (analysis, then
 * finding and checking `.git/config`) beside the anchor doing the same work by hand: the same analysis by the
 * plain command kind, then the same file-system lookups — a stat of `.git` on each level up to the
 * repository, and of its config — with nothing kept between calls but the parsed config. Interleaved in one
 * run, in a real repository with an ordinary config. Target: within 1.5× of the anchor. (The analysis alone
 * is printed too: since the plain-command fast path it costs less than the stats, so a ratio to it would
 * measure the file system, not our code.)
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withGitConfigCheck } from "../policy/index.js";
import { createCommandKind } from "../policy/shell/index.js";
import { loadBashParser } from "../policy/shell/parser.js";
import { fmt, measure, report } from "./harness.js";

const ROUNDS = 10;
const PER_ROUND = 200;

export default async function run(): Promise<void> {
  await loadBashParser();
  const root = await realpath(await mkdtemp(join(tmpdir(), "tg-bench-git-")));
  try {
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["remote", "add", "origin", "https://example.com/r.git"], { cwd: root });
    await mkdir(join(root, "src", "deep"), { recursive: true });
    const plain = createCommandKind();
    const checked = withGitConfigCheck(createCommandKind());
    const context = { roots: [root], args: { cwd: "src/deep" } };
    const lookups = [
      join(root, "src", "deep", ".git"),
      join(root, "src", ".git"),
      join(root, ".git"),
      join(root, ".git", "config"),
    ];
    const byHand = async () => {
      const analysis = await plain.prepare("git status --short", context);
      for (const path of lookups) statSync(path, { throwIfNoEntry: false });
      return analysis;
    };
    const ours: number[] = [];
    const anchor: number[] = [];
    const analysisOnly: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = await measure(byHand, PER_ROUND, 20);
      const o = await measure(() => checked.prepare("git status --short", context), PER_ROUND, 20);
      const p = await measure(() => plain.prepare("git status --short", context), PER_ROUND, 20);
      anchor.push(a.p50, a.p99);
      ours.push(o.p50, o.p99);
      analysisOnly.push(p.p50, p.p99);
    }
    const p50 = (xs: number[]) => [...xs.filter((_, i) => i % 2 === 0)].sort((x, y) => x - y)[ROUNDS >> 1]!;
    const p99 = (xs: number[]) => Math.max(...xs.filter((_, i) => i % 2 === 1));
    const ratio = p50(ours) / p50(anchor);
    report({
      name: "prepare `git status` in a sub-folder with the repository config check (p50 / p99)",
      ours: `${fmt(p50(ours))} / ${fmt(p99(ours))}`,
      anchor: `${fmt(p50(anchor))} / ${fmt(p99(anchor))} (same analysis + the same 4 stats by hand; analysis alone ${fmt(p50(analysisOnly))})`,
      ratio,
      target: "≤ 1.5× at p50",
      pass: ratio <= 1.5,
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
