/**
 * (spec 002) end to end: the memory and write_todos tools through `createToolgate` → `gate.execute`,
 * persisted where a second process (the `toolgate` binary) reads them, and the store files protected from
 * every file-writing tool even under a policy that allows everything.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { ALLOW_ALL, openGate } from "./fixtures.js";

let root: string;
let xdg: string;
let gate: Toolgate;
const savedXdg = process.env.XDG_CONFIG_HOME;

beforeAll(async () => {
  root = await tempWorkspace({ "notes.txt": "n\n" });
  xdg = await tempWorkspace({}, "tg-xdg-");
  // The user scope lives under $XDG_CONFIG_HOME: point it at a temporary folder (this worker only).
  process.env.XDG_CONFIG_HOME = xdg;
  // The user state folder is made a second root, so only its protection (not containment) can refuse writes.
  await mkdir(join(xdg, "toolgate", "state"), { recursive: true });
  gate = await openGate(root, { roots: [root, xdg], policyText: ALLOW_ALL });
});
afterAll(async () => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  await gate.close();
  await Promise.all([rm(root, { recursive: true, force: true }), rm(xdg, { recursive: true, force: true })]);
});

const memory = (args: object) => gate.execute({ name: "memory", args });
const todos = (args: object) => gate.execute({ name: "write_todos", args });

describe("memory through the pipeline", () => {
  it("set persists to disk, get returns it or says not found, delete removes, list lists", async () => {
    const set = await memory({ action: "set", key: "build", value: "npm run build" });
    expect(set).toMatchObject({
      ok: true,
      decision: "allow",
      llmContent: 'Saved "build" in project memory (13 bytes).',
    });
    await memory({ action: "set", key: "arch/notes", value: "hexagonal" });
    const file = JSON.parse(await readFile(join(root, ".toolgate/state/memory.json"), "utf8"));
    expect(file.entries.build.value).toBe("npm run build");

    expect((await memory({ action: "get", key: "build" })).llmContent).toBe(
      'Value of "build" in project memory:\nnpm run build',
    );
    const list = await memory({ action: "list" });
    expect(list.llmContent).toContain("arch/notes");
    expect(list.llmContent).toContain("build");

    expect((await memory({ action: "delete", key: "arch/notes" })).ok).toBe(true);
    const gone = await memory({ action: "get", key: "arch/notes" });
    expect(gone.llmContent).toMatch(/not found/i);
    expect((await memory({ action: "list" })).llmContent).not.toContain("arch/notes");
  });

  it("a second process (the binary) reads what the library stored", async () => {
    const r = await toolgate([
      "call",
      "memory",
      '{"action":"get","key":"build"}',
      "--yes",
      "--json",
      "--workspace",
      root,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).llmContent).toBe('Value of "build" in project memory:\nnpm run build');
  });

  it("the user scope is stored under $XDG_CONFIG_HOME/toolgate/state", async () => {
    await memory({ action: "set", key: "editor", value: "vim", scope: "user" });
    const file = JSON.parse(await readFile(join(xdg, "toolgate/state/memory.json"), "utf8"));
    expect(file.entries.editor.value).toBe("vim");
  });

  it("validates actions and keys before the policy is asked", async () => {
    const result = await memory({ action: "get" });
    expect(result).toMatchObject({
      decision: null,
      error: {
        type: "invalid_params",
        message: 'invalid arguments for memory: "key" is required for action "get"',
      },
    });
  });
});

describe("todos through the pipeline", () => {
  it("add gives unique ids; complete, update, remove, list with status", async () => {
    const first = await todos({ action: "add", text: "write the store" });
    expect(first.llmContent.split("\n")[0]).toBe("Added todo 1: write the store");
    await todos({ action: "add", text: "test it" });
    await todos({ action: "add", text: "drop me" });
    await todos({ action: "complete", id: "1" });
    await todos({ action: "update", id: "2", status: "in_progress", text: "test it well" });
    expect((await todos({ action: "remove", id: "3" })).ok).toBe(true);
    const list = await todos({ action: "list" });
    expect(list.llmContent).toBe(
      "Todos:\n[x] 1: write the store (completed)\n[~] 2: test it well (in_progress)",
    );
    const again = await todos({ action: "add", text: "new" });
    expect(again.llmContent.split("\n")[0]).toBe("Added todo 4: new");
    const file = JSON.parse(await readFile(join(root, ".toolgate/state/todos.json"), "utf8"));
    expect(file).toMatchObject({ kind: "toolgate-todos", nextId: 5 });
  });

  it("an unknown id is a clear error", async () => {
    expect((await todos({ action: "complete", id: "42" })).error).toMatchObject({
      type: "invalid_params",
      message: 'no todo with id "42"',
    });
  });
});

describe("the store files are protected from file-writing tools (policy allows everything)", () => {
  const attempts = () =>
    [
      ["write_file", { path: ".toolgate/state/memory.json", content: "{}", overwrite: true }],
      ["write_file", { path: ".toolgate/state/todos.json", content: "{}", overwrite: true }],
      ["write_file", { path: ".toolgate/state/new.json", content: "{}" }],
      ["write_file", { path: ".TOOLGATE/STATE/memory.json", content: "{}", overwrite: true }],
      ["write_file", { path: join(root, ".toolgate/state/memory.json"), content: "{}", overwrite: true }],
      ["write_file", { path: join(xdg, "toolgate/state/memory.json"), content: "{}", overwrite: true }],
      [
        "edit_file",
        { path: ".toolgate/state/memory.json", edits: [{ oldText: "npm run build", newText: "rm -rf /" }] },
      ],
      [
        "edit_file",
        { path: ".toolgate/state/todos.json", edits: [{ oldText: "test it well", newText: "x" }] },
      ],
      [
        "edit_file",
        { path: join(xdg, "toolgate/state/memory.json"), edits: [{ oldText: "vim", newText: "x" }] },
      ],
    ] as const;

  it("refuses each write and edit as protected, leaving the stores intact", async () => {
    const before = await Promise.all(
      [
        join(root, ".toolgate/state/memory.json"),
        join(root, ".toolgate/state/todos.json"),
        join(xdg, "toolgate/state/memory.json"),
      ].map((p) => readFile(p, "utf8")),
    );
    for (const [name, args] of attempts()) {
      const result = await gate.execute({ name, args });
      expect(result.decision, args.path).toBe("allow");
      expect(result.error, args.path).toMatchObject({
        type: "path_not_allowed",
        details: { reason: "protected" },
      });
    }
    const after = await Promise.all(
      [
        join(root, ".toolgate/state/memory.json"),
        join(root, ".toolgate/state/todos.json"),
        join(xdg, "toolgate/state/memory.json"),
      ].map((p) => readFile(p, "utf8")),
    );
    expect(after).toEqual(before);
    expect(existsSync(join(root, ".toolgate/state/new.json"))).toBe(false);
    expect((await memory({ action: "get", key: "build" })).llmContent).toContain("npm run build");
  });
});
