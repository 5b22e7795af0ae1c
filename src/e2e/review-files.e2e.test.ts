/**
 * Security review of the workspace and the file tools, end to end through `createToolgate` → `gate.execute`
 * under a policy that allows everything, so only the containment layer stands between a hostile model's
 * arguments and the machine: special files that would hang a read, rule files that are not plain files,
 * folders reached through symlinks, and the host's own policy file inside a root.
 */
import { execFileSync } from "node:child_process";
import { readFile, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { ALLOW_ALL, adversarialLayout, type Layout, openGate } from "./fixtures.js";

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

describe("special files never hang a file tool", () => {
  let root: string;
  let gate: Toolgate;
  beforeAll(async () => {
    root = await tempWorkspace({ "real.txt": "hello\n" });
    mkfifo(join(root, "pipe"));
    gate = await openGate(root, { policyText: ALLOW_ALL });
  });
  afterAll(async () => {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  });

  // Before the fix each of these blocked in open(2) until a writer appeared: forever.
  const table: [string, Record<string, unknown>, string, string][] = [
    ["read_file", { path: "pipe" }, "invalid_params", 'path "pipe" is not a regular file'],
    [
      "read_file (range)",
      { path: "pipe", startLine: 1, endLine: 2 },
      "invalid_params",
      'path "pipe" is not a regular file',
    ],
    ["grep", { pattern: "x", path: "pipe" }, "invalid_params", 'path "pipe" is not a regular file'],
    [
      "edit_file",
      { path: "pipe", edits: [{ oldText: "a", newText: "b" }] },
      "invalid_params",
      'path "pipe" is not a regular file',
    ],
    [
      "write_file",
      { path: "pipe", content: "x", overwrite: true },
      "invalid_params",
      'path "pipe" is not a regular file',
    ],
  ];
  it.each(table)("%s on a FIFO fails at once", async (label, args, type, message) => {
    const name = label.split(" ")[0] as string;
    const result = await gate.execute({ name, args });
    expect(result.error?.type).toBe(type);
    expect(result.error?.message).toBe(message);
  });

  it("read_many_files skips a FIFO and reads the rest", async () => {
    const result = await gate.execute({ name: "read_many_files", args: { paths: ["pipe", "real.txt"] } });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toContain("--- real.txt ---\nhello\n");
    expect(result.llmContent).toContain('Skipped: pipe (path "pipe" is not a regular file)');
  });
});

describe("rule files that are not plain files are ignored, never read", () => {
  let root: string;
  let gate: Toolgate;
  beforeAll(async () => {
    root = await tempWorkspace({ "a.txt": "needle\n", "sub/b.txt": "needle\n", "ignored.txt": "needle\n" });
    // A cloned repository can hold a symlinked .gitignore (git stores symlinks); git itself never follows it.
    await symlink("/dev/zero", join(root, ".gitignore"));
    mkfifo(join(root, "sub", ".gitignore"));
    gate = await openGate(root, { policyText: ALLOW_ALL });
  });
  afterAll(async () => {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  });

  const table: [string, Record<string, unknown>, string][] = [
    ["ls", { recursive: true }, "a.txt"],
    ["glob", { pattern: "**/*.txt" }, "sub/b.txt"],
    ["read_many_files", { patterns: ["**/*.txt"] }, "--- sub/b.txt ---"],
  ];
  // Before the fix: readFileSync of /dev/zero never ends and of a FIFO blocks the whole process. (grep is left
  // out: ripgrep itself reads such rule files — see the review report.)
  it.each(table)("%s completes", async (name, args, expected) => {
    const result = await gate.execute({ name, args });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toContain(expected);
  });
});

describe("glob never walks a folder outside the roots through a symlinked pattern base", () => {
  let layout: Layout;
  let gate: Toolgate;
  beforeAll(async () => {
    layout = await adversarialLayout({ "real.txt": "real\n" });
    gate = await openGate(layout.root, { policyText: ALLOW_ALL });
  });
  afterAll(async () => {
    await gate.close();
    await layout.cleanup();
  });

  // `dir-out` is a symlink in the root to a folder outside holding secret.txt.
  it.each(["dir-out/*", "dir-out/**", "dir-out/*.txt"])("glob %s lists nothing outside", async (pattern) => {
    const result = await gate.execute({ name: "glob", args: { pattern } });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).not.toContain("secret.txt");
    expect(result.llmContent).toBe(`No files match "${pattern}" in .`);
  });

  it("read_many_files with such a pattern reads nothing outside", async () => {
    const result = await gate.execute({ name: "read_many_files", args: { patterns: ["dir-out/**"] } });
    expect(result.llmContent).not.toContain("elsewhere");
    expect(result.error?.type).toBe("file_not_found");
  });
});

describe("the host's policy file is protected wherever it lives", () => {
  let root: string;
  let gate: Toolgate;
  beforeAll(async () => {
    root = await tempWorkspace({ "policy.toml": ALLOW_ALL });
    gate = await openGate(root, { policy: join(root, "policy.toml") });
  });
  afterAll(async () => {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  });

  it("write_file cannot rewrite the policy the gate was started with", async () => {
    const result = await gate.execute({
      name: "write_file",
      args: { path: "policy.toml", content: 'default = "allow"\n# pwned\n', overwrite: true },
    });
    expect(result.error?.type).toBe("path_not_allowed");
    expect(await readFile(join(root, "policy.toml"), "utf8")).toBe(ALLOW_ALL);
  });

  it("edit_file cannot either", async () => {
    const result = await gate.execute({
      name: "edit_file",
      args: { path: "policy.toml", edits: [{ oldText: "allow", newText: "allow" }] },
    });
    expect(result.error?.type).toBe("path_not_allowed");
  });
});

describe("the audit log is protected too", () => {
  it("write_file cannot truncate the audit file the gate records to", async () => {
    const root = await tempWorkspace();
    const gate = await openGate(root, { policyText: ALLOW_ALL, audit: "audit.jsonl" });
    try {
      await gate.execute({ name: "ls", args: {} });
      const before = await readFile(join(root, "audit.jsonl"), "utf8");
      const result = await gate.execute({
        name: "write_file",
        args: { path: "audit.jsonl", content: "", overwrite: true },
      });
      expect(result.error?.type).toBe("path_not_allowed");
      expect((await readFile(join(root, "audit.jsonl"), "utf8")).startsWith(before)).toBe(true);
    } finally {
      await gate.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
