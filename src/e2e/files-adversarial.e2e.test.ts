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
import {
  type AdversarialPaths,
  ALLOW_ALL,
  adversarialLayout,
  adversarialPaths,
  jsonLines,
  type Layout,
  openGate,
  writeTree,
} from "./fixtures.js";

let layout: Layout;
let root: string;
let base: string;
let gate: Toolgate;
let before: Record<string, string>;
let corpus: AdversarialPaths;

/** Existing protected files (edits must be refused too) and ordinary files beside them. */
const INSIDE = adversarialPaths().inside;

beforeAll(async () => {
  layout = await adversarialLayout(INSIDE);
  ({ root, base } = layout);
  corpus = adversarialPaths(layout);
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

// The cases come from the data file; it.each needs them before beforeAll has made the layout, so each case
// is its index, looked up in the filled-in corpus when it runs.
const PATHS = adversarialPaths().paths.map(([name], i) => [name, i] as const);
const EDIT_REFUSED = adversarialPaths().editRefused.map((_path, i) => i);
const OTHER_TOOLS = adversarialPaths().otherToolsRefused.map(([name, args], i) => [name, args, i] as const);

describe("adversarial paths through the library (policy: allow everything)", () => {
  it.each(PATHS)("%s", async (_name, index) => {
    const [, raw, readError, writeError] = corpus.paths[index]!;
    const path = () => raw;
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

  it.each(EDIT_REFUSED)("edit_file refuses case %i", async (index) => {
    const result = await gate.execute({
      name: "edit_file",
      args: { path: corpus.editRefused[index]!, edits: [{ oldText: "e", newText: "PWNED" }] },
    });
    expect(result.error?.type).toBe(PNA);
    expect(await layout.outsideSnapshot()).toEqual(before);
  });

  it.each(OTHER_TOOLS)("%s %j is refused", async (_name, _args, index) => {
    const [name, args] = corpus.otherToolsRefused[index]!;
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
  ...adversarialPaths().protectedExtra,
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
        args: { path, edits: [{ oldText: INSIDE[path]!.slice(0, 2), newText: "X" }] },
      });
      expect(result.error).toMatchObject({ type: PNA, details: { reason: "protected" } });
      expect(await readFile(join(root, path), "utf8")).toBe(INSIDE[path]);
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
