/**
 * Issue 3's adversarial path table end to end: through `createToolgate` → `gate.execute` under a policy that
 * allows everything (so every refusal below comes from the workspace, not the policy), and a subset through
 * the `toolgate call --yes --json` binary with its exit codes (DESIGN §4).
 */
import { existsSync } from "node:fs";
import { readFile, symlink, unlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { toolgate } from "../test-support/cli.js";
import { ALLOW_ALL, adversarialLayout, jsonLines, type Layout, openGate, writeTree } from "./fixtures.js";

let layout: Layout;
let root: string;
let base: string;
let gate: Toolgate;
let before: Record<string, string>;

/** Existing protected files (edits must be refused too) and ordinary files beside them. */
const INSIDE = {
  "real.txt": "real\n",
  "docs/readme.md": "docs\n",
  ".git/config": "[core]\n",
  ".git/hooks/pre-commit": "#!/bin/sh\n",
  ".gitmodules": "[submodule]\n",
  ".toolgate/policy.toml": ALLOW_ALL,
  ".toolgate/state/memory.json": "{}\n",
  ".mcp.json": "{}\n",
  ".env": "KEY=1\n",
  ".env.local": "KEY=2\n",
  ".vscode/settings.json": "{}\n",
  ".idea/workspace.xml": "<x/>\n",
  ".bashrc": "# rc\n",
  ".zshrc": "# rc\n",
  ".profile": "# rc\n",
  ".npmrc": "registry=x\n",
  "sub/.git/config": "[core]\n",
  "sub/deep/.env": "KEY=3\n",
};

beforeAll(async () => {
  layout = await adversarialLayout(INSIDE);
  ({ root, base } = layout);
  await symlink(".git", join(root, "git-alias"));
  await symlink(".env", join(root, "innocent.txt"));
  gate = await openGate(root, { policyText: ALLOW_ALL });
  before = await layout.outsideSnapshot();
});
afterAll(async () => {
  await gate.close();
  await layout.cleanup();
});

const PNA = "path_not_allowed";
const NF = "file_not_found";

// [case, path, read_file error (null = reads), write_file error (null = writes, inside the root)]
const table: [string, () => string, string | null, string | null][] = [
  ["prefix sibling proj-evil", () => "../proj-evil/secret.txt", PNA, PNA],
  ["prefix sibling proj_backup", () => "../proj_backup/x", PNA, PNA],
  ["prefix sibling proj2", () => "../proj2/x", PNA, PNA],
  ["absolute prefix sibling", () => `${root}-evil/secret.txt`, PNA, PNA],
  [".. leading", () => "../outside.txt", PNA, PNA],
  [".. in the middle", () => "docs/../../outside.txt", PNA, PNA],
  [".. deep in the middle", () => "docs/x/../../../outside.txt", PNA, PNA],
  [".. trailing", () => "docs/../..", PNA, PNA],
  ["./.. prefix", () => "./../outside.txt", PNA, PNA],
  ["absolute outside", () => `${base}/outside.txt`, PNA, PNA],
  ["/etc/passwd", () => "/etc/passwd", PNA, PNA],
  ["/proc/self/root to outside", () => `/proc/self/root${base}/outside.txt`, PNA, PNA],
  ["NUL byte", () => "real.txt\0.png", PNA, PNA],
  ["NUL byte with traversal", () => "../\0outside.txt", PNA, PNA],
  ["Windows drive", () => "C:\\Windows\\win.ini", PNA, PNA],
  ["UNC", () => "\\\\server\\share\\x", PNA, PNA],
  ["symlink to a file outside", () => "link-out", PNA, PNA],
  ["symlinked dir as parent of a new file", () => "dir-out/new.txt", PNA, PNA],
  ["symlinked dir as parent of an existing file", () => "dir-out/secret.txt", PNA, PNA],
  ["chain of symlinks to outside", () => "c1", PNA, PNA],
  ["dangling symlink to outside", () => "dangle", PNA, PNA],
  ["hard link to an outside file (write refused)", () => "hard.txt", null, PNA],
  ["~ stays a literal name", () => "~/notes.txt", NF, null],
  ["%2e%2e stays literal", () => "%2e%2e/%2e%2e/outside.txt", NF, null],
];

describe("adversarial paths through the library (policy: allow everything)", () => {
  it.each(table)("%s", async (_name, path, readError, writeError) => {
    const read = await gate.execute({ name: "read_file", args: { path: path() } });
    expect(read.decision).toBe("allow");
    expect(read.error?.type ?? null).toBe(readError);
    const write = await gate.execute({
      name: "write_file",
      args: { path: path(), content: "pwned\n", overwrite: true },
    });
    expect(write.decision).toBe("allow");
    expect(write.error?.type ?? null).toBe(writeError);
    if (writeError === PNA) expect(write.error?.details?.path).toBe(path());
    expect(await layout.outsideSnapshot()).toEqual(before);
  });

  it("keeps ~ and %2e%2e literal: the files were made inside the root", async () => {
    expect(await readFile(join(root, "~/notes.txt"), "utf8")).toBe("pwned\n");
    expect(await readFile(join(root, "%2e%2e/%2e%2e/outside.txt"), "utf8")).toBe("pwned\n");
  });

  it.each([
    ["link-out", () => "link-out"],
    ["c1", () => "c1"],
    ["hard.txt", () => "hard.txt"],
    ["dir-out/secret.txt", () => "dir-out/secret.txt"],
    ["../outside.txt", () => "../outside.txt"],
    ["/proc/self/root/...", () => `/proc/self/root${base}/outside.txt`],
  ])("edit_file refuses %s", async (_name, path) => {
    const result = await gate.execute({
      name: "edit_file",
      args: { path: path(), edits: [{ oldText: "e", newText: "PWNED" }] },
    });
    expect(result.error?.type).toBe(PNA);
    expect(await layout.outsideSnapshot()).toEqual(before);
  });

  it.each([
    ["ls", { path: "dir-out" }],
    ["ls", { path: "/etc" }],
    ["glob", { pattern: "*", path: "dir-out" }],
    ["grep", { pattern: "secret", path: ".." }],
    ["grep", { pattern: "secret", path: "link-out" }],
    ["read_many_files", { paths: ["real.txt", "../outside.txt"] }],
  ])("%s %j is refused", async (name, args) => {
    const result = await gate.execute({ name, args });
    expect(result.error?.type).toBe(PNA);
    expect(result.llmContent).not.toContain("secret\n");
  });

  it("a symlink swapped in while the person was being asked is not followed", async () => {
    const asking = await openGate(root, { policy: false });
    await writeTree(root, { "swap.txt": "original\n" });
    asking.bus.onConfirmation(async () => {
      await unlink(join(root, "swap.txt"));
      await symlink(join(base, "outside.txt"), join(root, "swap.txt"));
      return { approved: true };
    });
    const result = await asking.execute({
      name: "write_file",
      args: { path: "swap.txt", content: "pwned\n", overwrite: true },
    });
    await asking.close();
    expect(result.decision).toBe("ask");
    expect(result.error?.type).toBe(PNA);
    expect(await layout.outsideSnapshot()).toEqual(before);
  });
});

/** Every protected path and case variant, for write_file; the existing ones for edit_file too. */
const PROTECTED = [
  ...Object.keys(INSIDE).filter((p) => p !== "real.txt" && p !== "docs/readme.md"),
  ".GIT/config",
  ".Git/HOOKS/pre-commit",
  ".git",
  ".git.",
  ".GITMODULES",
  ".TOOLGATE/policy.toml",
  ".toolgate/agents/evil.md",
  ".MCP.json",
  "sub/.mcp.json",
  ".ENV",
  ".Env.Production",
  ".VSCode/tasks.json",
  ".IDEA/x",
  ".BashRC",
  ".bash_profile",
  ".ZSHRC",
  ".zshenv",
  ".NPMRC",
  "git-alias/config",
  "innocent.txt",
];

describe("protected paths are refused under a policy allowing everything", () => {
  it.each(PROTECTED)("write_file %s", async (path) => {
    const result = await gate.execute({
      name: "write_file",
      args: { path, content: "pwned", overwrite: true },
    });
    expect(result.decision).toBe("allow");
    expect(result.error).toMatchObject({ type: PNA, details: { path, reason: "protected" } });
    expect(result.error?.message).toMatch(/is protected and cannot be written by file tools \(protected: /);
  });

  it.each(Object.keys(INSIDE).filter((p) => p !== "real.txt" && p !== "docs/readme.md"))(
    "edit_file %s",
    async (path) => {
      const result = await gate.execute({
        name: "edit_file",
        args: { path, edits: [{ oldText: INSIDE[path as keyof typeof INSIDE].slice(0, 2), newText: "X" }] },
      });
      expect(result.error).toMatchObject({ type: PNA, details: { reason: "protected" } });
      expect(await readFile(join(root, path), "utf8")).toBe(INSIDE[path as keyof typeof INSIDE]);
    },
  );

  it("pins the message", async () => {
    const result = await gate.execute({ name: "write_file", args: { path: ".mcp.json", content: "{}" } });
    expect(result.error?.message).toBe(
      'path ".mcp.json" is protected and cannot be written by file tools (protected: .mcp.json)',
    );
  });
});

describe("the same table through `toolgate call --yes --json` (policy file: default allow)", () => {
  const cli = (args: string[], input?: string) =>
    toolgate(["call", ...args, "--yes", "--json", "--workspace", root], input === undefined ? {} : { input });

  it("refuses a batch of escapes and protected writes, each path_not_allowed (exit 1)", async () => {
    const calls = [
      ["write_file", { path: "../proj-evil/x.txt", content: "pwned" }],
      ["write_file", { path: `${base}/outside.txt`, content: "pwned", overwrite: true }],
      ["write_file", { path: "dir-out/new.txt", content: "pwned" }],
      ["write_file", { path: "dangle", content: "pwned" }],
      ["write_file", { path: "hard.txt", content: "pwned", overwrite: true }],
      ["write_file", { path: ".toolgate/policy.toml", content: 'default = "allow"', overwrite: true }],
      ["write_file", { path: ".GIT/hooks/post-checkout", content: "#!/bin/sh\n" }],
      ["edit_file", { path: ".env", edits: [{ oldText: "KEY", newText: "X" }] }],
      ["read_file", { path: `/proc/self/root${base}/outside.txt` }],
      ["read_file", { path: "c1" }],
    ] as const;
    const input = calls.map(([name, args]) => JSON.stringify({ name, args })).join("\n");
    const r = await cli(["--batch", "-"], input);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => [l.ok, l.decision, l.error?.type])).toEqual(
      calls.map(() => [false, "allow", PNA]),
    );
    expect(r.code).toBe(1);
    expect(await layout.outsideSnapshot()).toEqual(before);
    expect(existsSync(join(root, ".GIT"))).toBe(false);
    expect(await readFile(join(root, ".toolgate/policy.toml"), "utf8")).toBe(ALLOW_ALL);
  });

  it("exit 1 for a protected write even with --yes, exit 2 for bad arguments", async () => {
    const prot = await cli([
      "write_file",
      JSON.stringify({ path: ".mcp.json", content: "{}", overwrite: true }),
    ]);
    expect(prot.code).toBe(1);
    expect(JSON.parse(prot.stdout)).toEqual({
      ok: false,
      decision: "allow",
      llmContent: expect.any(String),
      returnDisplay: expect.any(String),
      error: {
        type: PNA,
        message: 'path ".mcp.json" is protected and cannot be written by file tools (protected: .mcp.json)',
      },
    });
    const bad = await cli(["write_file", '{"path":["a"],"content":"x"}']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toEqual({
      type: "invalid_params",
      message: "invalid arguments for write_file: parameter 'path' must be a string",
    });
  });
});
