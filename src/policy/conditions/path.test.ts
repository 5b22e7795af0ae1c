import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/index.js";
import { createPathKind, type PathValue } from "./path.js";

let base: string;
let root: string;

/** A canonicalizer like the workspace's: realpath of the path (or its parent), inside the first root. */
async function canonicalize(raw: string, roots: readonly string[]) {
  const absolute = resolve(roots[0] as string, raw);
  let canonical: string;
  try {
    canonical = await realpath(absolute);
  } catch {
    try {
      canonical = join(await realpath(resolve(absolute, "..")), absolute.split("/").pop() as string);
    } catch {
      return undefined;
    }
  }
  const rel = relative(roots[0] as string, canonical);
  if (rel.startsWith("..") || rel.startsWith("/")) return undefined;
  return { canonical, relative: rel };
}

const kind = createPathKind(canonicalize);

async function test(op: string, operand: unknown, raw: unknown, decision: Decision = "allow") {
  const value = (await kind.prepare(raw, { roots: [root], args: {} })) as PathValue;
  return kind.operators[op]!(operand)(value, decision);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-pathkind-")));
  root = join(base, "proj");
  await mkdir(join(root, "secrets/deep"), { recursive: true });
  await mkdir(join(root, "src"), { recursive: true });
  await writeFile(join(root, "secrets/deep/key.txt"), "k");
  await writeFile(join(base, "outside.txt"), "o");
  await symlink("secrets/deep/key.txt", join(root, "innocent.txt"));
  await symlink(join(base, "outside.txt"), join(root, "out-link"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("path plug-in", () => {
  const table: [string, string, unknown, unknown, Decision, boolean][] = [
    ["glob on the canonical relative path", "glob", "secrets/**", "secrets/deep/key.txt", "deny", true],
    ["glob through ./ and ..", "glob", "secrets/**", "./src/../secrets/deep/key.txt", "deny", true],
    ["glob through a symlink (canonical)", "glob", "secrets/**", "innocent.txt", "deny", true],
    ["glob with absolute argument", "glob", "secrets/**", "/PLACEHOLDER/secrets/deep/key.txt", "deny", true],
    ["glob folder pattern", "glob", "secrets/", "secrets/new.txt", "deny", true],
    ["glob basename at any depth", "glob", "*.txt", "secrets/deep/key.txt", "allow", true],
    ["glob array", "glob", ["docs/**", "src/**"], "src/a.ts", "allow", true],
    ["glob no match", "glob", "secrets/**", "src/a.ts", "deny", false],
    [
      "glob negation",
      "glob",
      ["secrets/deep/*", "!secrets/deep/key.txt"],
      "secrets/deep/key.txt",
      "deny",
      false,
    ],
    ["glob folds case for deny", "glob", "secrets/**", "SECRETS/x", "deny", true],
    ["glob keeps case for allow", "glob", "secrets/**", "SECRETS/x", "allow", false],
    ["equals", "equals", "src/a.ts", "./src/a.ts", "allow", true],
    ["equals absolute operand", "equals", "/PLACEHOLDER/src/a.ts", "src/a.ts", "allow", true],
    ["oneOf", "oneOf", ["x", "src/a.ts"], "src/a.ts", "allow", true],
    ["prefix on components", "prefix", "src", "src/a.ts", "allow", true],
    ["prefix is not a string prefix", "prefix", "sec", "secrets/deep/key.txt", "deny", false],
    ["contains", "contains", "deep", "innocent.txt", "deny", true],
    ["regex on the relative path", "regex", "^secrets/.*\\.txt$", "innocent.txt", "deny", true],
    ["outside the roots: deny holds", "glob", "secrets/**", "../outside.txt", "deny", true],
    ["outside the roots: allow fails", "glob", "**", "../outside.txt", "allow", false],
    ["outside via symlink: allow fails", "prefix", "", "out-link", "allow", false],
    ["outside via symlink: ask fails", "glob", "**", "out-link", "ask", false],
    ["NUL byte: deny holds", "equals", "x", "x\0y", "deny", true],
    ["NUL byte: allow fails", "glob", "**", "x\0y", "allow", false],
    ["not a string: deny holds", "glob", "**", 42, "deny", true],
    ["not a string: allow fails", "glob", "**", { path: "x" }, "allow", false],
  ];
  it.each(table)("%s", async (_name, op, operand, raw, decision, expected) => {
    const fix = (v: unknown): unknown =>
      typeof v === "string" ? v.replace("/PLACEHOLDER", root) : Array.isArray(v) ? v.map(fix) : v;
    expect(await test(op, fix(operand), fix(raw), decision)).toBe(expected);
  });

  it("refuses bad operands with a message", () => {
    expect(() => kind.operators.glob!(42)).toThrow("expects a string or an array of strings, got number");
    expect(() => kind.operators.glob!("")).toThrow("glob must not be empty");
    expect(() => kind.operators.regex!("(a+)+$")).toThrow("catastrophic backtracking");
    expect(() => kind.operators.equals!(["a"])).toThrow("expects a path string");
  });

  it("never throws from prepare, even when the canonicalizer does", async () => {
    const throwing = createPathKind(async () => {
      throw new Error("boom");
    });
    expect(await throwing.prepare("x", { roots: [root], args: {} })).toEqual({ ok: false, reason: "boom" });
  });
});

describe("path plug-in on a list of paths (read_many_files paths)", () => {
  it.each([
    ["allow needs every entry", "allow", ["src/a.ts", "secrets/deep/key.txt"], false],
    ["allow with every entry matching", "allow", ["src/a.ts", "src/b.ts"], true],
    ["allow never holds for an empty list", "allow", [], false],
    ["ask holds when any entry matches", "ask", ["secrets/deep/key.txt", "elsewhere.md"], true],
    ["deny holds when any entry matches", "deny", ["elsewhere.md", "secrets/deep/key.txt"], true],
    ["deny does not hold when none matches", "deny", ["elsewhere.md"], false],
    ["deny holds for an entry outside the roots", "deny", ["../outside.txt"], true],
  ] as const)("%s", async (_note, decision, paths, want) => {
    const operand = decision === "allow" ? "src/**" : "secrets/**";
    expect(await test("glob", operand, [...paths], decision)).toBe(want);
  });
});
