/** The todo store's API: ids, statuses, the one-in-progress rule, unknown ids, validation, limits. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTodoStore, type TodoStore } from "./todo-store.js";

let dir: string;
let file: string;
let store: TodoStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-todo-store-"));
  file = join(dir, "todos.json");
  store = openTodoStore(file);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const summary = async () => (await store.list()).map((it) => `${it.id}:${it.status}:${it.text}`);

describe("todo store", () => {
  it("adds with increasing short ids and lists in creation order", async () => {
    expect(await store.list()).toEqual([]);
    const a = await store.add("first");
    const b = await store.add("second");
    expect([a.item.id, b.item.id]).toEqual(["1", "2"]);
    expect(a.item).toMatchObject({ text: "first", status: "pending" });
    expect(await summary()).toEqual(["1:pending:first", "2:pending:second"]);
    expect(await openTodoStore(file).get("2")).toMatchObject({ text: "second" });
  });

  it("never reuses an id after a removal", async () => {
    await store.add("a");
    await store.add("b");
    await store.remove("2");
    expect((await store.add("c")).item.id).toBe("3");
    expect(JSON.parse(await readFile(file, "utf8")).nextId).toBe(4);
  });

  it("completes (idempotently), removes and updates", async () => {
    await store.add("a");
    await store.add("b");
    expect(await store.complete("1")).toMatchObject({ id: "1", status: "completed" });
    expect(await store.complete("1")).toMatchObject({ id: "1", status: "completed" });
    expect(await store.update("2", { text: "b, reworded" })).toEqual({
      item: expect.objectContaining({ id: "2", text: "b, reworded", status: "pending" }),
    });
    expect(await store.remove("1")).toMatchObject({ id: "1", text: "a" });
    expect(await summary()).toEqual(["2:pending:b, reworded"]);
  });

  it("keeps at most one item in progress by moving the previous one back to pending", async () => {
    await store.add("a");
    await store.add("b");
    expect((await store.update("1", { status: "in_progress" })).demoted).toBeUndefined();
    const change = await store.update("2", { status: "in_progress" });
    expect(change.item).toMatchObject({ id: "2", status: "in_progress" });
    expect(change.demoted).toMatchObject({ id: "1", status: "pending" });
    expect(await summary()).toEqual(["1:pending:a", "2:in_progress:b"]);
    // Adding straight into progress demotes too; re-setting the same item does not.
    const added = await store.add("c", "in_progress");
    expect(added.demoted).toMatchObject({ id: "2", status: "pending" });
    expect((await store.update("3", { status: "in_progress" })).demoted).toBeUndefined();
    expect((await store.list()).filter((it) => it.status === "in_progress").map((it) => it.id)).toEqual([
      "3",
    ]);
  });

  it("names the unknown id in its error and writes nothing", async () => {
    await store.add("a");
    const before = await readFile(file, "utf8");
    for (const op of [
      () => store.complete("9"),
      () => store.remove("9"),
      () => store.update("9", { text: "x" }),
    ]) {
      await expect(op()).rejects.toThrow('no todo with id "9"');
      await expect(op()).rejects.toMatchObject({ code: "not_found", path: file });
    }
    expect(await readFile(file, "utf8")).toBe(before);
  });

  const invalid: [string, () => Promise<unknown>, string][] = [
    ["empty text", () => store.add(""), "todo text must be a non-empty string"],
    ["blank text", () => store.add("   "), "todo text must be a non-empty string"],
    ["long text", () => store.add("x".repeat(2001)), "todo text is 2001 characters; the limit is 2000"],
    [
      "bad status",
      () => store.add("a", "done" as never),
      'unknown todo status "done"; use pending, in_progress, completed',
    ],
    ["empty update", () => store.update("1", {}), "update needs a new text or a new status"],
    ["update to blank", () => store.update("1", { text: "" }), "todo text must be a non-empty string"],
  ];
  it.each(invalid)("refuses %s", async (_note, op, message) => {
    await expect(op()).rejects.toThrow(message);
    await expect(op()).rejects.toMatchObject({ code: "invalid" });
  });

  it("refuses to grow past maxItems", async () => {
    const small = openTodoStore(file, { maxItems: 2 });
    await small.add("a");
    await small.add("b");
    await expect(small.add("c")).rejects.toThrow(
      "the todo list is full (2 items); remove finished items first",
    );
    await small.remove("1");
    expect((await small.add("c")).item.id).toBe("3");
  });
});
