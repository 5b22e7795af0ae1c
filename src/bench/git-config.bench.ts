/**
 * @module bench/git-config
 * What reading the repository's git config costs a shell command's policy preparation (issue 13 item 2):
 * `git status` prepared by the command kind wrapped with `withGitConfigCheck` (analysis + finding and reading
 * `.git/config`) beside the same command prepared by the plain command kind (analysis only), interleaved in
 * one run, in a real repository with an ordinary config. Target: within 1.5× of the anchor.
 */
import { execFileSync } from "node:child_process";
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
    const ours: number[] = [];
    const anchor: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = await measure(() => plain.prepare("git status --short", context), PER_ROUND, 20);
      const o = await measure(() => checked.prepare("git status --short", context), PER_ROUND, 20);
      anchor.push(a.p50, a.p99);
      ours.push(o.p50, o.p99);
    }
    const p50 = (xs: number[]) => [...xs.filter((_, i) => i % 2 === 0)].sort((x, y) => x - y)[ROUNDS >> 1]!;
    const p99 = (xs: number[]) => Math.max(...xs.filter((_, i) => i % 2 === 1));
    const ratio = p50(ours) / p50(anchor);
    report({
      name: "prepare `git status` with the repository config check (p50 / p99)",
      ours: `${fmt(p50(ours))} / ${fmt(p99(ours))}`,
      anchor: `${fmt(p50(anchor))} / ${fmt(p99(anchor))} (analysis only, same command)`,
      ratio,
      target: "≤ 1.5× at p50",
      pass: ratio <= 1.5,
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
