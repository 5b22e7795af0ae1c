/**
 * The analysis expands words as bash does, and the command it hands on runs exactly those words. Real bash
 * is the oracle (`test-support/bash-words.ts`), in a workspace of tricky names (`testdata/expansion/
 * words.json`): each table word, and a seeded fuzz of generated words, is analysed as an operand of
 * `printf '%s\0'`; its words must be bash's; the rewritten command (`analysis.expanded`) must print the same
 * words when bash runs it, still after new files are planted, and must analyse to the same commands with
 * nothing left to expand. Words the analysis cannot reproduce are refused, with the reason.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashOutputs, bashWords } from "../../../test-support/bash-words.js";
import { type FileTree, tempTree, writeTree } from "../../../test-support/file-tree.js";
import { seededRandom } from "../../../utils/index.js";
import { analyzeCommandSync } from "../analyze.js";
import { loadBashParser } from "../parser.js";
import { shellQuote } from "./expand.js";

interface Table {
  tree: FileTree;
  plantedLater: string[];
  words: { note: string; word: string }[];
  refused: { note: string; word: string; because: string }[];
  refusedCommands: { note: string; command: string; because: string }[];
}
const table = (await import("../testdata/expansion/words.json", { with: { type: "json" } }))
  .default as unknown as Table;

const PRINT = "printf '%s\\0'";
/** Run before the rewritten commands: `printf FORMAT WORDS…` prints the count, then the words. */
const COUNTING_PRINTF = `printf() { builtin printf '%s\\0' "$(( $# - 1 ))" "\${@:2}"; }`;
let root: string;

beforeAll(async () => {
  await loadBashParser();
  root = tempTree(table.tree, "tg-expand-");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const analyse = (command: string) => analyzeCommandSync(command, { cwd: root, roots: [root] });

/** Words from `COUNTING_PRINTF`'s output. */
function counted(output: string): string[] {
  const [count, ...words] = output.split("\0").slice(0, -1);
  if (Number(count) !== words.length) throw new Error(`printf saw ${count} words, printed ${words.length}`);
  return words;
}

/** What one word gives: the analysis' words, the rewritten command, or the refusal. */
function ours(word: string) {
  const analysis = analyse(`${PRINT} ${word}`);
  const refused = analysis.unsafe.find((u) => u.startsWith("expansion not reproduced"));
  return { word, analysis, refused, words: analysis.commands[0]!.slice(2) };
}
type Ours = ReturnType<typeof ours>;

/** What bash runs for each rewritten command (`expanded`, or the text when nothing was expanded). */
function runRewrites(results: readonly Ours[]): string[][] {
  const texts = results.map((r) => r.analysis.expanded ?? r.analysis.text);
  return bashOutputs(texts, { cwd: root, prelude: COUNTING_PRINTF }).map(counted);
}

/** Compares a batch with bash: its words, the rewrite run by bash, the rewrite analysed again. */
function compareWithBash(words: readonly string[]): { refused: number; mismatches: unknown[] } {
  const want = bashWords(words, { cwd: root });
  const results = words.map(ours);
  const reproduced = results.filter((r) => r.refused === undefined);
  const ran = runRewrites(reproduced);
  const mismatches: unknown[] = [];
  results.forEach((r, i) => {
    if (r.refused === undefined && JSON.stringify(r.words) !== JSON.stringify(want[i]))
      mismatches.push({ word: r.word, ours: r.words, bash: want[i] });
  });
  reproduced.forEach((r, i) => {
    if (JSON.stringify(ran[i]) !== JSON.stringify(r.words))
      mismatches.push({ word: r.word, checked: r.words, ran: ran[i], text: r.analysis.expanded });
    const again = analyse(r.analysis.expanded ?? r.analysis.text);
    const same =
      JSON.stringify([again.commands, again.unsafe, again.expanded]) ===
      JSON.stringify([r.analysis.commands, r.analysis.unsafe, undefined]);
    if (!same) mismatches.push({ word: r.word, reanalysed: again.commands, unsafe: again.unsafe });
  });
  return { refused: results.length - reproduced.length, mismatches };
}

describe("words.json: words expand as bash expands them", () => {
  let compared: Map<string, unknown[]>;
  beforeAll(() => {
    compared = new Map(table.words.map((w) => [w.word, [] as unknown[]]));
    const { mismatches } = compareWithBash(table.words.map((w) => w.word));
    for (const m of mismatches as { word: string }[]) compared.get(m.word)!.push(m);
  });

  it.each(table.words)("$note: $word", ({ word }) => {
    expect(ours(word).refused).toBeUndefined();
    expect(compared.get(word)).toEqual([]);
  });

  it.each(table.refused)("refused, $note: $word", ({ word, because }) => {
    const { refused, analysis } = ours(word);
    expect(refused).toContain(because);
    expect(analysis.expanded).toBeUndefined();
  });

  it.each(table.refusedCommands)("refused, $note: $command", ({ command, because }) => {
    const analysis = analyse(command);
    expect(analysis.unsafe.join("; ")).toContain(because);
  });

  it("refuses a matching file name that is not UTF-8", () => {
    const dir = tempTree({}, "tg-expand-bytes-");
    try {
      writeFileSync(Buffer.concat([Buffer.from(`${dir}/f`), Buffer.from([0xff])]), "");
      const analysis = analyzeCommandSync("ls f*", { cwd: dir, roots: [dir] });
      expect(analysis.unsafe).toEqual([expect.stringContaining("a matching file name is not UTF-8")]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("expands in the folder the call names, and after cd in the folder cd goes to", () => {
    const inSrc = analyzeCommandSync("ls *.ts", { cwd: join(root, "src"), roots: [root] });
    expect(inSrc.commands).toEqual([["ls", "-e.ts", "a.ts", "b.ts"]]);
    const afterCd = analyse("(cd src && ls *.ts); (cd dir2; ls *.ts); ls *.md");
    expect(afterCd.commands).toEqual([
      ["cd", "src"],
      ["ls", "-e.ts", "a.ts", "b.ts"],
      ["cd", "dir2"],
      ["ls", "g.ts"],
      ["ls", "README.md", "a b.md", "notes.md", "ａ.md", "😀.md"],
    ]);
    expect(afterCd.expanded).toBe(
      "(cd src && ls -e.ts a.ts b.ts); (cd dir2; ls g.ts); ls README.md 'a b.md' notes.md 'ａ.md' '😀.md'",
    );
  });

  it("skips the paths the caller hides (the sandbox's placeholder folders), at any depth of the pattern", () => {
    const hidden = (path: string) => path === join(root, "notes.md") || path === join(root, "src", "a.ts");
    const analysis = analyzeCommandSync("ls *.md src/*.ts", { cwd: root, roots: [root], hidden });
    expect(analysis.commands).toEqual([
      ["ls", "README.md", "a b.md", "ａ.md", "😀.md", "src/-e.ts", "src/b.ts"],
    ]);
    // A pattern whose every match is hidden stays as written, as bash leaves a pattern that matches nothing.
    const none = analyzeCommandSync("ls notes.*", { cwd: root, roots: [root], hidden });
    expect(none.commands).toEqual([["ls", "notes.*"]]);
  });

  it("without a workspace folder, a glob is not expanded and not vouched for; braces still are", () => {
    const analysis = analyzeCommandSync("ls {a,b}*.md");
    expect(analysis.unsafe).toEqual([expect.stringContaining("no workspace folder")]);
    expect(analyzeCommandSync("echo {a,b}").commands).toEqual([["echo", "a", "b"]]);
  });
});

describe("what runs is what was checked", () => {
  it("the rewritten commands pass the same words after files are planted; the originals would not", () => {
    const results = table.words.map((w) => ours(w.word)).filter((r) => r.analysis.expanded !== undefined);
    const texts = results.map((r) => r.analysis.text);
    const before = bashOutputs(texts, { cwd: root, prelude: COUNTING_PRINTF });
    writeTree(root, { files: table.plantedLater });
    try {
      expect(runRewrites(results)).toEqual(results.map((r) => r.words));
      // The planted files do change what the original text would run: the test can tell.
      expect(bashOutputs(texts, { cwd: root, prelude: COUNTING_PRINTF })).not.toEqual(before);
    } finally {
      for (const file of table.plantedLater) rmSync(join(root, file), { force: true });
    }
  });

  it("quotes every word so bash reads it back unchanged", () => {
    const tricky = [
      "-i",
      "a b",
      "it's",
      "~x",
      "a=b",
      "*",
      "{a,b}",
      "",
      "$(id)",
      "`id`",
      "\n",
      "#x",
      "!x",
      "é",
    ];
    const got = bashWords(
      tricky.map((w) => shellQuote(w)),
      { cwd: root },
    );
    expect(got).toEqual(tricky.map((w) => [w]));
    expect(shellQuote("A=B", true)).toBe("'A=B'");
  });
});

/** Generated words: unquoted pattern and brace characters mixed with quoted and escaped parts. */
function fuzzWords(seed: number, count: number): string[] {
  const rand = seededRandom(seed);
  const unquoted = [
    "*",
    "?",
    "[a-c]",
    "[!-]",
    "[]x]",
    "[",
    "]",
    "{",
    "}",
    ",",
    "..",
    "1",
    "3",
    "a",
    "b",
    "-",
  ];
  const more = [
    ".",
    "md",
    "txt",
    "/",
    "src",
    "*/",
    "ts",
    "é",
    "😀",
    "x",
    "~",
    "=",
    "{a,b}",
    "{1..3}",
    "i",
    "B",
  ];
  const quoted = ["'*'", "' '", "'-'", '"a b"', "\\*", "\\{", "'{a,b}'", '"*"', "\\,", "''", "'['"];
  const pick = (list: readonly string[]) => list[Math.floor(rand() * list.length)]!;
  const out: string[] = [];
  while (out.length < count) {
    let word = "";
    const parts = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < parts; i++) {
      const r = rand();
      word += r < 0.45 ? pick(unquoted) : r < 0.8 ? pick(more) : pick(quoted);
    }
    // Not operands of this test: a comment, and tilde expansion of a word that has no brace or glob (bash
    // makes it a home folder's path; the analysis leaves such a word to bash, as it can never be an option).
    if (/^[#=~]|^[A-Za-z_][A-Za-z0-9_]*=~/.test(word)) continue;
    out.push(word);
  }
  return out;
}

describe("fuzz: generated words expand as bash expands them", () => {
  it.each([1, 2, 3, 15])("seed %i: 400 words", (seed) => {
    const { refused, mismatches } = compareWithBash(fuzzWords(seed, 400));
    expect(mismatches).toEqual([]);
    // Refusals are allowed (a tilde, a class, a link to outside), but most words must be reproduced.
    expect(refused).toBeLessThan(120);
  });
});
