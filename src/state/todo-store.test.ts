/**
 * The todo store on its file: the id counter is kept in the file. Its API on every backend — ids,
 * statuses, the one-in-progress rule, unknown ids, validation, limits — is the state backend contract
 * (`src/test-support/state-backend-contract.ts`, run by `backend.test.ts`).
 */
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

describe("todo store", () => {
  it("never reuses an id after a removal", async () => {
    await store.add("a");
    await store.add("b");
    await store.remove("2");
    expect((await store.add("c")).item.id).toBe("3");
    expect(JSON.parse(await readFile(file, "utf8")).nextId).toBe(4);
  });
});
