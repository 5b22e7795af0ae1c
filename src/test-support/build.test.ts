/** scripts/build.mjs's digest of the build's inputs, which decides whether the tests' set-up rebuilds dist/. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const script = resolve(import.meta.dirname, "../../scripts/build.mjs");
const buildDigest = (dir: string) =>
  execFileSync(process.execPath, [script, "--digest", dir], { encoding: "utf8" }).trim();

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tg-stamp-"));
  write("package.json", "{}");
  write("src/core/a.ts", "export const a = 1;\n");
  write("src/core/a.test.ts", "test\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the build digest", () => {
  it("changes when a source, its data or the build's settings change", () => {
    const before = buildDigest(root);
    for (const [path, text] of [
      ["src/core/a.ts", "export const a = 2;\n"],
      ["src/core/b.json", "{}"],
      ["tsconfig.build.json", "{}"],
      ["scripts/bundle.mjs", "//"],
    ] as const) {
      const last = buildDigest(root);
      write(path, text);
      expect(buildDigest(root), path).not.toBe(last);
    }
    expect(buildDigest(root)).not.toBe(before);
  });

  it("stays the same when only tests, their data or the test support change", () => {
    const before = buildDigest(root);
    write("src/core/a.test.ts", "other test\n");
    write("src/core/testdata/case.json", "[]");
    write("src/test-support/helper.ts", "export {};\n");
    expect(buildDigest(root)).toBe(before);
  });

  it("tells apart bytes moved from one file to the next", () => {
    write("src/core/b.ts", "x");
    const before = buildDigest(root);
    write("src/core/a.ts", "export const a = 1;\nx");
    write("src/core/b.ts", "");
    expect(buildDigest(root)).not.toBe(before);
  });
});
