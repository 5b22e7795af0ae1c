/**
 * The memory tool through the real pipeline (registry → validation → policy → execute):
 * scopes, validation errors, the "not found" answer, and a store failure surfacing as a typed error.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { executeCall, type PipelineDeps, ToolRegistry } from "../core/index.js";
import { PolicyEngine, parsePolicy } from "../policy/index.js";
import { createFileStateBackend } from "../state/index.js";
import { createMemoryTool } from "./memory.js";

let dir: string;
let root: string;
let userDir: string;
let warnings: string[];

/** The tool on the file backend (as a gate makes it), with lock settings or a value cap when given. */
async function pipeline(
  extra: { lock?: { staleMs: number; timeoutMs: number }; maxValueBytes?: number } = {},
): Promise<PipelineDeps> {
  const registry = new ToolRegistry();
  const logger = { warn: (m: string) => warnings.push(m) };
  const state = createFileStateBackend({ root, userDir, logger, ...extra.lock });
  registry.register(
    createMemoryTool({ state, ...(extra.maxValueBytes ? { maxValueBytes: extra.maxValueBytes } : {}) }),
  );
  const policy = await parsePolicy('default = "allow"', "test-policy.toml");
  return { registry, decider: new PolicyEngine({ policy, roots: [root] }) };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-memory-tool-"));
  root = join(dir, "ws");
  userDir = join(dir, "config", "toolgate", "state");
  await mkdir(root);
  warnings = [];
});
afterEach(async () => {
  await chmod(join(root, ".toolgate", "state"), 0o755).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe("memory tool", () => {
  it("sets, gets, lists and deletes in project scope, persisted to .toolgate/state/memory.json", async () => {
    const deps = await pipeline();
    const call = (args: object) => executeCall(deps, { name: "memory", args });
    const set = await call({ action: "set", key: "build", value: "npm run build" });
    expect(set).toMatchObject({
      ok: true,
      decision: "allow",
      llmContent: 'Saved "build" in project memory (13 bytes).',
    });
    await call({ action: "set", key: "arch/notes", value: "hexagonal" });
    const file = JSON.parse(await readFile(join(root, ".toolgate", "state", "memory.json"), "utf8"));
    expect(file.entries.build.value).toBe("npm run build");

    // A fresh tool (a new conversation) sees the same memory.
    const later = await pipeline();
    const get = await executeCall(later, { name: "memory", args: { action: "get", key: "build" } });
    expect(get.llmContent).toBe('Value of "build" in project memory:\nnpm run build');
    expect(get.data).toEqual({
      action: "get",
      scope: "project",
      key: "build",
      found: true,
      value: "npm run build",
      // Written with no session: the user's own (trusted, public), stored with the value.
      label: { integrity: "trusted", confidentiality: "public", sources: [] },
    });
    const list = await executeCall(later, { name: "memory", args: { action: "list" } });
    expect(list.llmContent).toBe("2 keys in project memory:\narch/notes\nbuild");
    expect(list.data).toEqual({
      action: "list",
      scope: "project",
      keys: ["arch/notes", "build"],
      label: { integrity: "trusted", confidentiality: "public", sources: [] },
    });

    const del = await call({ action: "delete", key: "build" });
    expect(del.llmContent).toBe('Deleted "build" from project memory.');
    const again = await call({ action: "delete", key: "build" });
    expect(again).toMatchObject({ ok: true, data: { deleted: false } });
    expect(again.llmContent).toBe(
      'Not found: no value is stored under "build" in project memory; nothing was deleted.',
    );
    expect((await call({ action: "list" })).llmContent).toBe("1 key in project memory:\narch/notes");
  });

  it("answers a missing key with a clear not-found result, not an error", async () => {
    const deps = await pipeline();
    const got = await executeCall(deps, { name: "memory", args: { action: "get", key: "nope" } });
    expect(got.ok).toBe(true);
    expect(got.error).toBeUndefined();
    expect(got.llmContent).toBe('Not found: no value is stored under "nope" in project memory.');
    expect(got.data).toMatchObject({ found: false });
    expect((await executeCall(deps, { name: "memory", args: { action: "list" } })).llmContent).toBe(
      "No keys in project memory.",
    );
  });

  it("keeps user scope apart from project scope, in the user state dir", async () => {
    const deps = await pipeline();
    const call = (args: object) => executeCall(deps, { name: "memory", args });
    await call({ action: "set", key: "k", value: "project value" });
    await call({ action: "set", key: "k", value: "user value", scope: "user" });
    expect((await call({ action: "get", key: "k", scope: "user" })).llmContent).toBe(
      'Value of "k" in user memory:\nuser value',
    );
    expect((await call({ action: "get", key: "k" })).llmContent).toBe(
      'Value of "k" in project memory:\nproject value',
    );
    const userFile = JSON.parse(await readFile(join(userDir, "memory.json"), "utf8"));
    expect(userFile.entries.k.value).toBe("user value");
  });

  const invalid: [string, object, string][] = [
    ["no action", { key: "a" }, "invalid arguments for memory"],
    ["unknown action", { action: "drop", key: "a" }, "invalid arguments for memory"],
    ["set without key", { action: "set", value: "v" }, '"key" is required for action "set"'],
    ["get without key", { action: "get" }, '"key" is required for action "get"'],
    ["set without value", { action: "set", key: "a" }, '"value" is required for action "set"'],
    [
      "bad key",
      { action: "set", key: "a b", value: "v" },
      'memory key "a b" may contain only letters, digits and _ . : / -',
    ],
    [
      "long key",
      { action: "get", key: "k".repeat(129) },
      "memory key must be 1 to 128 characters long (got 129)",
    ],
    ["unknown scope", { action: "list", scope: "global" }, "invalid arguments for memory"],
    ["extra argument", { action: "list", path: "/etc" }, "invalid arguments for memory"],
    [
      "value too big",
      { action: "set", key: "a", value: "x".repeat(65_537) },
      "memory value is 65537 bytes; the limit is 65536 bytes",
    ],
  ];
  it.each(invalid)("refuses %s", async (_note, args, message) => {
    const deps = await pipeline();
    const result = await executeCall(deps, { name: "memory", args });
    expect(result.ok).toBe(false);
    expect(result.error?.type).toBe("invalid_params");
    expect(result.error?.message).toContain(message);
  });

  it("treats a path-like key as a name, never a path", async () => {
    const deps = await pipeline();
    const call = (args: object) => executeCall(deps, { name: "memory", args });
    expect(await call({ action: "get", key: "../../etc/passwd" })).toMatchObject({
      ok: true,
      data: { found: false },
    });
    await call({ action: "set", key: "../../x", value: "v" });
    expect((await call({ action: "list" })).data).toMatchObject({ keys: ["../../x"] });
  });

  it("honours a configured value cap", async () => {
    const deps = await pipeline({ maxValueBytes: 4 });
    const result = await executeCall(deps, {
      name: "memory",
      args: { action: "set", key: "a", value: "12345" },
    });
    expect(result.error).toMatchObject({
      type: "invalid_params",
      message: "invalid arguments for memory: memory value is 5 bytes; the limit is 4 bytes",
    });
  });

  it("reports a lock held too long as a timeout naming the file, and changes nothing", async () => {
    const deps = await pipeline();
    await executeCall(deps, { name: "memory", args: { action: "set", key: "a", value: "old" } });
    const stateDir = join(root, ".toolgate", "state");
    const file = join(stateDir, "memory.json");
    // A directory where the lock must go: works as root too (modes do not stop root).
    await mkdir(`${file}.lock`);
    await writeFile(join(`${file}.lock`, "x"), "");
    const blocked = await pipeline({ lock: { staleMs: 2000, timeoutMs: 300 } });
    const result = await executeCall(blocked, {
      name: "memory",
      args: { action: "set", key: "a", value: "new" },
    });
    expect(result.ok).toBe(false);
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.message).toBe(
      `timed out after 300 ms waiting for the lock on ${file} (another process holds ${file}.lock)`,
    );
    expect(result.error?.details).toMatchObject({ path: file });
    await rm(`${file}.lock`, { recursive: true });
    expect(JSON.parse(await readFile(file, "utf8")).entries.a.value).toBe("old");
  });

  it("reports a file-system failure as execution_failed with the path and the reason", async () => {
    // `.toolgate` is a file, so the state directory cannot be created (a real ENOTDIR, also as root).
    await writeFile(join(root, ".toolgate"), "not a directory");
    const deps = await pipeline();
    const result = await executeCall(deps, { name: "memory", args: { action: "set", key: "a", value: "v" } });
    const stateDir = join(root, ".toolgate", "state");
    expect(result.error).toEqual({
      type: "execution_failed",
      message: `could not create the state directory ${stateDir}: a parent path is not a directory (ENOTDIR)`,
      details: { path: stateDir, code: "io" },
    });
    expect(await readFile(join(root, ".toolgate"), "utf8")).toBe("not a directory");
  });

  it("reports a corrupt store through the logger and keeps the bad file aside", async () => {
    const stateDir = join(root, ".toolgate", "state");
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, "memory.json"), "{ not json");
    const deps = await pipeline();
    const list = await executeCall(deps, { name: "memory", args: { action: "list" } });
    expect(list.llmContent).toBe("No keys in project memory.");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^state file .*memory\.json could not be read \(not valid JSON/);
  });

  it("declares kind other, risk low, and describes calls", async () => {
    const tool = createMemoryTool({ state: createFileStateBackend({ root, userDir }) });
    expect([tool.name, tool.kind, tool.risk]).toEqual(["memory", "other", "low"]);
    const inv = tool.build({ action: "set", key: "a", value: "v", scope: "user" });
    expect(inv.describe()).toBe('memory set "a" (user)');
    expect(inv.locations()).toEqual([join(userDir, "memory.json")]);
    expect(tool.build({ action: "list" }).describe()).toBe("memory list (project)");
  });
});
