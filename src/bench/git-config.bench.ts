/**
 * @module bench/git-config
 * What reading the repository's git config costs a shell command's policy preparation (issue 13 item 2):
 * `git status` in a sub-folder prepared by the command kind wrapped with `withGitConfigCheck` (analysis, then
 * finding and checking `.git/config`) beside the anchor doing the same work by hand: the same analysis by the
 * plain command kind, then the same file-system lookups — a stat of `.git` on each level up to the
 * repository, and of its config (ours parses the config again only when that stat changes), and, as `status`
 * goes into submodules, a look for `.git/modules` and `.gitmodules` (issue 27). Interleaved call
 * by call, in a real repository with an ordinary config. Target: within 1.5× of the anchor. (The analysis alone
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
import { fmt, interleaved, report } from "./harness.js";

const WARMUP = 200;
const CALLS = 3000;

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
      join(root, ".git", "modules"),
      join(root, ".gitmodules"),
    ];
    const byHand = async () => {
      const analysis = await plain.prepare("git status --short", context);
      for (const path of lookups) statSync(path, { throwIfNoEntry: false });
      return analysis;
    };
    const ours = () => checked.prepare("git status --short", context);
    const analysisOnly = () => plain.prepare("git status --short", context);
    for (let i = 0; i < WARMUP; i++) for (const fn of [ours, byHand, analysisOnly]) await fn();
    // Call by call, the three alternating, so drift (CPU frequency, GC, other load) hits each alike.
    const [o, a, p] = await interleaved(ours, byHand, CALLS, analysisOnly);
    const ratio = o.p50 / a.p50;
    report({
      name: "prepare `git status` in a sub-folder with the repository config check, 3000 calls interleaved (p50 / p99)",
      ours: `${fmt(o.p50)} / ${fmt(o.p99)}`,
      anchor: `${fmt(a.p50)} / ${fmt(a.p99)} (same analysis + the same 6 lookups by hand; analysis alone ${fmt(p!.p50)})`,
      ratio,
      target: "≤ 1.5× at p50",
      pass: ratio <= 1.5,
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
