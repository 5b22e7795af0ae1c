/**
 * The write_todos tool through the real pipeline: update and in_progress, unknown ids,
 * validation, persistence in `.toolgate/state/todos.json`.
 */
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { executeCall, type PipelineDeps, ToolRegistry } from "../core/index.js";
import { PolicyEngine, parsePolicy } from "../policy/index.js";
import { createFileStateBackend } from "../state/index.js";
import { createWriteTodosTool, formatTodos } from "./write-todos.js";

let dir: string;
let root: string;
let deps: PipelineDeps;

async function pipeline(): Promise<PipelineDeps> {
  const registry = new ToolRegistry();
  registry.register(createWriteTodosTool({ state: createFileStateBackend({ root }) }));
  const policy = await parsePolicy('default = "allow"', "test-policy.toml");
  return { registry, decider: new PolicyEngine({ policy, roots: [root] }) };
}
const call = (args: object) => executeCall(deps, { name: "write_todos", args });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-todos-tool-"));
  root = join(dir, "ws");
  await mkdir(root);
  deps = await pipeline();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("write_todos tool", () => {
  it("adds items with unique ids, completes, removes and lists them with their status", async () => {
    const first = await call({ action: "add", text: "write the store" });
    expect(first.llmContent).toBe(
      "Added todo 1: write the store\n\nTodos:\n[ ] 1: write the store (pending)",
    );
    expect(first.data).toMatchObject({ action: "add", item: { id: "1", status: "pending" } });
    await call({ action: "add", text: "test it" });
    await call({ action: "add", text: "ship it" });

    const done = await call({ action: "complete", id: "1" });
    expect(done.llmContent).toBe(
      [
        "Completed todo 1: write the store",
        "",
        "Todos:",
        "[x] 1: write the store (completed)",
        "[ ] 2: test it (pending)",
        "[ ] 3: ship it (pending)",
      ].join("\n"),
    );
    const removed = await call({ action: "remove", id: "3" });
    expect(removed.llmContent.split("\n")[0]).toBe("Removed todo 3: ship it");

    // A new conversation (a new tool) lists the same items.
    deps = await pipeline();
    const list = await call({ action: "list" });
    expect(list.llmContent).toBe("Todos:\n[x] 1: write the store (completed)\n[ ] 2: test it (pending)");
    const items = (list.data as { items: { id: string; status: string }[] }).items;
    expect(items.map((it) => [it.id, it.status])).toEqual([
      ["1", "completed"],
      ["2", "pending"],
    ]);
    const file = JSON.parse(await readFile(join(root, ".toolgate", "state", "todos.json"), "utf8"));
    expect(file).toMatchObject({ version: 1, kind: "toolgate-todos", nextId: 4 });
  });

  it("updates text and status, keeping at most one item in progress", async () => {
    await call({ action: "add", text: "a" });
    await call({ action: "add", text: "b" });
    const started = await call({ action: "update", id: "1", status: "in_progress" });
    expect(started.llmContent.split("\n")[0]).toBe("Updated todo 1: a (in_progress)");
    const switched = await call({ action: "update", id: "2", status: "in_progress", text: "b, reworded" });
    expect(switched.llmContent).toBe(
      [
        "Updated todo 2: b, reworded (in_progress)",
        "Todo 1 was in progress and is now pending.",
        "",
        "Todos:",
        "[ ] 1: a (pending)",
        "[~] 2: b, reworded (in_progress)",
      ].join("\n"),
    );
    expect(switched.data).toMatchObject({ demoted: { id: "1", status: "pending" } });
  });

  it("names an unknown id in a clear error", async () => {
    await call({ action: "add", text: "a" });
    for (const args of [
      { action: "complete", id: "42" },
      { action: "remove", id: "42" },
      { action: "update", id: "42", text: "x" },
    ]) {
      const result = await call(args);
      expect(result.ok).toBe(false);
      expect(result.error?.type).toBe("invalid_params");
      expect(result.error?.message).toBe('no todo with id "42"');
    }
  });

  const invalid: [string, object, string][] = [
    ["add without text", { action: "add" }, '"text" is required for action "add"'],
    ["add with blank text", { action: "add", text: "  " }, "todo text must be a non-empty string"],
    ["complete without id", { action: "complete" }, '"id" is required for action "complete"'],
    ["remove without id", { action: "remove" }, '"id" is required for action "remove"'],
    ["update with nothing", { action: "update", id: "1" }, 'action "update" needs "text" or "status"'],
    ["unknown status", { action: "update", id: "1", status: "done" }, "invalid arguments for write_todos"],
    ["unknown action", { action: "clear" }, "invalid arguments for write_todos"],
    ["numeric id", { action: "complete", id: 1 }, "invalid arguments for write_todos"],
  ];
  it.each(invalid)("refuses %s", async (_note, args, message) => {
    const result = await call(args);
    expect(result.ok).toBe(false);
    expect(result.error?.type).toBe("invalid_params");
    expect(result.error?.message).toContain(message);
  });

  it("lists an empty list plainly and formats every status", async () => {
    expect((await call({ action: "list" })).llmContent).toBe("The todo list is empty.");
    const stamp = "2025-01-01T00:00:00.000Z";
    const item = (id: string, status: "pending" | "in_progress" | "completed") => ({
      id,
      text: `t${id}`,
      status,
      createdAt: stamp,
      updatedAt: stamp,
    });
    expect(formatTodos([item("1", "pending"), item("2", "in_progress"), item("3", "completed")])).toBe(
      "Todos:\n[ ] 1: t1 (pending)\n[~] 2: t2 (in_progress)\n[x] 3: t3 (completed)",
    );
  });
});
