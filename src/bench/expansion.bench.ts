/**
 * @module bench/expansion
 * What expanding a command's braces and globs at decide time costs (issue 27 item 1), interleaved call by
 * call with anchors doing the same work in the same run:
 * - a command with globs and braces (`grep -n TODO src/*.ts *.md {a,b}.txt`), prepared by the command kind in
 *   a workspace of 400 files, beside the same analysis of the command with its patterns quoted (nothing to
 *   expand) plus the same work by hand: the two folders read and their real paths resolved, names matched
 *   by a regular expression, sorted, written out. Target: within 1.5× of the anchor at p50.
 * - a 20-sub-command line with no pattern, analysed with a workspace (every word looked at for expansion)
 *   beside the same analysis without one: expansion must cost plain commands next to nothing (≤ 1.15×).
 */
import { readdirSync, realpathSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeCommandSync, createCommandKind } from "../policy/shell/index.js";
import { loadBashParser } from "../policy/shell/parser.js";
import { fmt, interleaved, report } from "./harness.js";

const CALLS = 3000;
const WARMUP = 200;
const GLOBBED = "grep -n TODO src/*.ts *.md {a,b}.txt";
const QUOTED = "grep -n TODO 'src/*.ts' '*.md' a.txt b.txt";

/** A workspace of 400 files: 200 in the root (md, txt, json), 200 in src (ts, js), a few dot files. */
async function workspace(): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "tg-bench-expand-")));
  await mkdir(join(root, "src"));
  for (let i = 0; i < 200; i++) {
    writeFileSync(join(root, `file${i}.${["md", "txt", "json"][i % 3]}`), "");
    writeFileSync(join(root, "src", `mod${i}.${i % 2 === 0 ? "ts" : "js"}`), "");
  }
  for (const dot of [".env.md", ".hidden.ts"]) writeFileSync(join(root, dot), "");
  return root;
}

/** The anchor's by-hand expansion of one folder: read, resolve, match (no dot files), sort. */
function byHand(dir: string, prefix: string, pattern: RegExp): string[] {
  realpathSync.native(dir);
  return readdirSync(dir)
    .filter((name) => !name.startsWith(".") && pattern.test(name))
    .map((name) => prefix + name)
    .sort();
}

async function benchGlobbed(root: string): Promise<void> {
  const kind = createCommandKind();
  const context = { roots: [root], args: {} };
  const check = await kind.prepare(GLOBBED, context);
  if (check.commands[0]?.length !== 3 + 100 + 67 + 2 || check.expanded === undefined)
    throw new Error(`bench command did not expand as expected: ${check.commands[0]?.length} words`);
  const ours = () => kind.prepare(GLOBBED, context);
  const anchor = async () => {
    const analysis = await kind.prepare(QUOTED, context);
    const words = [
      ...byHand(join(root, "src"), "src/", /\.ts$/),
      ...byHand(root, "", /\.md$/),
      "a.txt",
      "b.txt",
    ];
    return [analysis, words.join(" ")];
  };
  for (let i = 0; i < WARMUP; i++) for (const fn of [ours, anchor]) await fn();
  const [o, a] = await interleaved(ours, anchor, CALLS);
  const ratio = o.p50 / a.p50;
  report({
    name: `expansion: prepare \`${GLOBBED}\` over 400 files, ${CALLS} calls interleaved (p50 / p99)`,
    ours: `${fmt(o.p50)} / ${fmt(o.p99)}`,
    anchor: `${fmt(a.p50)} / ${fmt(a.p99)} (the quoted command's analysis + the same folder reads, matching and sorting by hand; p99 ratio ${(o.p99 / a.p99).toFixed(2)}×)`,
    ratio,
    target: "≤ 1.5× at p50",
    pass: ratio <= 1.5,
  });
}

const LINE = [
  "git status",
  "ls -la src",
  "grep -rn 'TODO' src",
  "cat README.md",
  "npm run test -- --watch=false",
  "git diff --stat",
  "wc -l src/index.ts",
  "head -n 20 package.json",
  "git log --oneline -n 5",
  'echo "building"',
]
  .map((c, i) => (i === 0 ? c : `${i % 2 === 0 ? " && " : " | "}${c}`))
  .join("");
const TWENTY = `${LINE}; ${LINE}`;

function benchPlain(root: string): Promise<void> {
  const withWorkspace = () => analyzeCommandSync(TWENTY, { cwd: root, roots: [root] });
  const without = () => analyzeCommandSync(TWENTY);
  if (withWorkspace().commands.length !== 20 || withWorkspace().expanded !== undefined)
    throw new Error("the plain bench line did not analyse as 20 unexpanded commands");
  return interleaved(withWorkspace, without, CALLS).then(([o, a]) => {
    const ratio = o.p50 / a.p50;
    report({
      name: `expansion: analyse a 20-sub-command line with no pattern, with a workspace to expand in, ${CALLS} calls interleaved (p50 / p99)`,
      ours: `${fmt(o.p50)} / ${fmt(o.p99)}`,
      anchor: `${fmt(a.p50)} / ${fmt(a.p99)} (the same analysis with no workspace)`,
      ratio,
      target: "≤ 1.15× at p50",
      pass: ratio <= 1.15,
    });
  });
}

export default async function run(): Promise<void> {
  await loadBashParser();
  const root = await workspace();
  try {
    await benchGlobbed(root);
    await benchPlain(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
