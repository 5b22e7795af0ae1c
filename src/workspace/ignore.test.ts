import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IgnoreRules } from "./ignore.js";

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "tg-ignore-")));
  await mkdir(join(root, ".git/info"), { recursive: true });
  await mkdir(join(root, "src/gen"), { recursive: true });
  await mkdir(join(root, "build"), { recursive: true });
  await writeFile(join(root, ".gitignore"), "build/\n*.log\n!keep.log\n");
  await writeFile(join(root, ".git/info/exclude"), "local-only.txt\n");
  await writeFile(join(root, "src/.gitignore"), "gen/\n*.tmp\n!important.log\n");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("IgnoreRules", () => {
  const table: [string, boolean, boolean][] = [
    ["build", true, true],
    ["build/out.js", false, true],
    ["debug.log", false, true],
    ["keep.log", false, false],
    ["src/a.log", false, true],
    ["src/important.log", false, false],
    ["src/gen", true, true],
    ["src/gen/x.ts", false, true],
    ["src/a.tmp", false, true],
    ["a.tmp", false, false],
    ["local-only.txt", false, true],
    ["src/local-only.txt", false, true],
    [".git", true, true],
    ["src/main.ts", false, false],
  ];
  it.each(table)("%s (dir: %s) ignored: %s", (rel, isDir, ignored) => {
    const rules = new IgnoreRules(root);
    expect(rules.isIgnoredDeep(join(root, rel), isDir)).toBe(ignored);
  });

  it("finds the git top from a sub-folder root and applies the rules above it", () => {
    const rules = new IgnoreRules(join(root, "src"));
    expect(rules.gitTop).toBe(root);
    expect(rules.isIgnoredDeep(join(root, "src/x.log"), false)).toBe(true);
  });
});
