/**
 * @module test-support/state-backend-contract
 * The contract every StateBackend passes, run through the rules layer the tools and the CLI use
 * (`createMemoryStore`, `createTodoStore`), so semantics and messages are the same on every backend. An
 * implementation's test calls `stateBackendContract(name, setup)`; `setup` returns handles on one fresh,
 * empty storage (`open()` may return the same object, or a new client each time so that concurrent writers
 * are different clients).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createMemoryStore,
  createTodoStore,
  type StateBackend,
  StateError,
  type StateMeta,
  type TodoStore,
} from "../state/index.js";

/** One storage under test. */
export interface StateBackendFixture {
  /** A handle on the storage. */
  open(): StateBackend;
  /** Releases the storage (stops servers, removes folders). */
  close(): Promise<void>;
}

/** Runs `fn` on `writers` handles at once, each `times` times in sequence. */
async function concurrently(
  writers: number,
  times: number,
  fn: (writer: number, i: number) => Promise<void>,
) {
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < times; i++) await fn(w, i);
    }),
  );
}

/**
 * Registers the contract's tests for one implementation.
 * @example stateBackendContract("in-process", async () => { const b = createInProcessStateBackend(); return { open: () => b, close: async () => {} }; });
 */
export function stateBackendContract(name: string, setup: () => Promise<StateBackendFixture>): void {
  describe(`StateBackend contract: ${name}`, () => {
    let fixture: StateBackendFixture;
    let backend: StateBackend;
    const memory = (scope: "project" | "user" = "project", handle = backend) =>
      createMemoryStore(handle.memory(scope));
    const todos = (handle = backend, maxItems?: number) =>
      createTodoStore(handle.todos(), maxItems === undefined ? {} : { maxItems });
    beforeEach(async () => {
      fixture = await setup();
      backend = fixture.open();
    });
    afterEach(async () => {
      await fixture.close();
    });

    describe("memory", () => {
      it("sets, gets, lists and deletes, seen from another handle", async () => {
        const store = memory();
        expect(await store.keys()).toEqual([]);
        expect(await store.get("missing")).toBeUndefined();
        await store.set("b", "two");
        await store.set("a", "one");
        await store.set("b", "TWO");
        const other = memory("project", fixture.open());
        expect(await other.get("b")).toBe("TWO");
        expect(await other.keys()).toEqual(["a", "b"]);
        const list = await other.list();
        expect(list).toEqual([
          { key: "a", value: "one", updatedAt: expect.any(String) },
          { key: "b", value: "TWO", updatedAt: expect.any(String) },
        ]);
        expect(Date.parse(list[0]?.updatedAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
        expect(await other.delete("a")).toBe(true);
        expect(await other.delete("a")).toBe(false);
        expect(await store.keys()).toEqual(["b"]);
      });

      it("stores the empty string, unicode, newlines and awkward keys exactly", async () => {
        const store = memory();
        const values = ["", "line 1\nline 2\r\n", "ünïcödé — 日本語 🎉", '{"json": "inside"}', "\u0000nul"];
        for (const [i, v] of values.entries()) await store.set(`k${i}`, v);
        for (const [i, v] of values.entries())
          expect(await memory("project", fixture.open()).get(`k${i}`)).toBe(v);
        for (const key of ["__proto__", "constructor", "x".repeat(128), "..", "/", "proj:build/cmd"]) {
          await store.set(key, key);
          expect(await store.get(key)).toBe(key);
        }
      });

      it("keeps the project's and the user's memory apart", async () => {
        await memory("project").set("k", "project value");
        await memory("user").set("k", "user value");
        expect(await memory("project").get("k")).toBe("project value");
        expect(await memory("user", fixture.open()).get("k")).toBe("user value");
        expect(backend.memory("project").path).not.toBe(backend.memory("user").path);
      });

      it("refuses bad keys and values with the rules' messages, writing nothing", async () => {
        const store = createMemoryStore(backend.memory("project"), { maxValueBytes: 10 });
        const refusals: [() => Promise<unknown>, string][] = [
          [() => store.set("a b", "v"), 'memory key "a b" may contain only letters, digits and _ . : / -'],
          [() => store.get(""), "memory key must be 1 to 128 characters long (got 0)"],
          [() => store.delete("x".repeat(129)), "memory key must be 1 to 128 characters long (got 129)"],
          [() => store.set("big", "ééééééé"), "memory value is 14 bytes; the limit is 10 bytes"],
          [() => store.set("m", "v", { meta: [] as never }), "memory meta must be a plain JSON object"],
          [() => store.set("m", "v", { meta: { n: Number.NaN } }), "memory meta must be a plain JSON object"],
        ];
        for (const [op, message] of refusals) {
          const error = await op().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StateError);
          expect(error).toMatchObject({ code: "invalid", message, path: store.path });
        }
        expect(await store.keys()).toEqual([]);
        await store.set("ok", "1234567890"); // exactly the cap
        expect(await store.keys()).toEqual(["ok"]);
      });

      it("stores meta with a value and returns it unchanged; a set without meta clears it", async () => {
        const store = memory();
        const meta: StateMeta = {
          labels: { integrity: "untrusted", confidentiality: "private" },
          sources: [{ tool: "web_fetch", host: "example.com" }, null, 3.5, true, "ü"],
        };
        const written = await store.set("page", "text", { meta });
        expect(written).toMatchObject({ key: "page", value: "text", meta });
        expect((await memory("project", fixture.open()).read("page"))?.meta).toEqual(meta);
        expect((await store.list()).find((e) => e.key === "page")?.meta).toEqual(meta);
        await store.set("page", "plain");
        const plain = await store.read("page");
        expect(plain).not.toHaveProperty("meta");
        expect((await store.list())[0]).toEqual({
          key: "page",
          value: "plain",
          updatedAt: expect.any(String),
        });
      });

      it("writes conditionally on a revision, refusing a stale one with a conflict", async () => {
        const store = memory();
        const created = await store.set("k", "1", { ifRevision: null });
        const read = await store.read("k");
        expect(read?.revision).toBe(created.revision);
        const next = await store.set("k", "2", { ifRevision: created.revision });
        expect(next.revision).not.toBe(created.revision);
        const stale = await store.set("k", "3", { ifRevision: created.revision }).catch((e: unknown) => e);
        expect(stale).toMatchObject({
          code: "conflict",
          path: store.path,
          message: `memory key "k" changed since it was read (its revision is ${next.revision} now, not ${created.revision}); read it again`,
        });
        await expect(store.set("k", "3", { ifRevision: null })).rejects.toThrow(
          'memory key "k" changed since it was read (it is set now); read it again',
        );
        await expect(store.delete("k", { ifRevision: created.revision })).rejects.toMatchObject({
          code: "conflict",
        });
        expect(await store.get("k")).toBe("2");
        expect(await store.delete("k", { ifRevision: next.revision })).toBe(true);
        await expect(store.set("k", "4", { ifRevision: next.revision })).rejects.toThrow(
          'memory key "k" changed since it was read (it is not set now); read it again',
        );
        expect(await store.get("k")).toBeUndefined();
      });

      it("loses no update when writers race read-modify-write on one key", async () => {
        await memory().set("counter", "0");
        await concurrently(4, 10, async (w) => {
          const store = memory("project", w === 0 ? backend : fixture.open());
          for (;;) {
            const current = await store.read("counter");
            try {
              await store.set("counter", String(Number(current?.value) + 1), {
                ifRevision: current?.revision ?? null,
              });
              return;
            } catch (error) {
              if ((error as StateError).code !== "conflict") throw error;
            }
          }
        });
        expect(await memory().get("counter")).toBe("40");
      });

      it("lets exactly one of many conditional writers on one revision win, the rest told of the conflict", async () => {
        const outcomes = async (ops: (() => Promise<unknown>)[]) =>
          Promise.all(
            ops.map((op) =>
              op().then(
                () => "ok",
                (e: StateError) => e.code,
              ),
            ),
          );
        const created = await outcomes(
          Array.from(
            { length: 8 },
            (_, w) => () => memory("project", fixture.open()).set("once", `w${w}`, { ifRevision: null }),
          ),
        );
        expect(created.filter((o) => o === "ok")).toHaveLength(1);
        expect(created.filter((o) => o === "conflict")).toHaveLength(7);
        const { revision } = (await memory().read("once")) ?? { revision: "" };
        const deleted = await Promise.all(
          Array.from({ length: 8 }, () =>
            memory("project", fixture.open())
              .delete("once", { ifRevision: revision })
              .then(
                (gone) => (gone ? "deleted" : "absent"),
                (e: StateError) => e.code,
              ),
          ),
        );
        expect(deleted.filter((o) => o === "deleted")).toHaveLength(1);
        expect(await memory().get("once")).toBeUndefined();
      });

      it("keeps every key when writers set distinct keys at once", async () => {
        await concurrently(4, 15, (w, i) =>
          memory("project", fixture.open())
            .set(`w${w}-${i}`, `${w}:${i}`)
            .then(() => undefined),
        );
        const keys = await memory().keys();
        expect(keys).toHaveLength(60);
        expect(await memory().get("w3-14")).toBe("3:14");
      });
    });

    describe("todos", () => {
      const summary = async (store: TodoStore) =>
        (await store.list()).map((it) => `${it.id}:${it.status}:${it.text}`);

      it("adds with increasing short ids, lists in creation order, never reuses an id", async () => {
        const store = todos();
        expect(await store.list()).toEqual([]);
        const a = await store.add("first");
        const b = await store.add("second");
        expect([a.item.id, b.item.id]).toEqual(["1", "2"]);
        expect(a.item).toEqual({
          id: "1",
          text: "first",
          status: "pending",
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        });
        expect(await todos(fixture.open()).get("2")).toMatchObject({ text: "second" });
        await store.remove("2");
        expect((await store.add("third")).item.id).toBe("3");
        expect(await summary(store)).toEqual(["1:pending:first", "3:pending:third"]);
      });

      it("completes (idempotently), removes and updates", async () => {
        const store = todos();
        await store.add("a");
        await store.add("b");
        expect(await store.complete("1")).toMatchObject({ id: "1", status: "completed" });
        const revision = (await backend.todos().read()).revision;
        expect(await store.complete("1")).toMatchObject({ id: "1", status: "completed" });
        expect((await backend.todos().read()).revision).toBe(revision);
        expect(await store.update("2", { text: "b, reworded" })).toEqual({
          item: expect.objectContaining({ id: "2", text: "b, reworded", status: "pending" }),
        });
        expect((await backend.todos().read()).revision).not.toBe(revision);
        expect(await store.remove("1")).toMatchObject({ id: "1", text: "a" });
        expect(await summary(store)).toEqual(["2:pending:b, reworded"]);
      });

      it("keeps at most one item in progress, moving the previous one back to pending", async () => {
        const store = todos();
        await store.add("a");
        await store.add("b");
        expect((await store.update("1", { status: "in_progress" })).demoted).toBeUndefined();
        const change = await store.update("2", { status: "in_progress" });
        expect(change.item).toMatchObject({ id: "2", status: "in_progress" });
        expect(change.demoted).toMatchObject({ id: "1", status: "pending" });
        const added = await store.add("c", "in_progress");
        expect(added.demoted).toMatchObject({ id: "2", status: "pending" });
        expect((await store.update("3", { status: "in_progress" })).demoted).toBeUndefined();
        expect(await summary(store)).toEqual(["1:pending:a", "2:pending:b", "3:in_progress:c"]);
      });

      it("names an unknown id and refuses bad input with the rules' messages, writing nothing", async () => {
        const store = todos();
        await store.add("a");
        const before = await backend.todos().read();
        const refusals: [() => Promise<unknown>, string, string][] = [
          [() => store.complete("9"), "not_found", 'no todo with id "9"'],
          [() => store.remove("9"), "not_found", 'no todo with id "9"'],
          [() => store.update("9", { text: "x" }), "not_found", 'no todo with id "9"'],
          [() => store.add(""), "invalid", "todo text must be a non-empty string"],
          [() => store.add("   "), "invalid", "todo text must be a non-empty string"],
          [() => store.add("x".repeat(2001)), "invalid", "todo text is 2001 characters; the limit is 2000"],
          [
            () => store.add("a", "done" as never),
            "invalid",
            'unknown todo status "done"; use pending, in_progress, completed',
          ],
          [() => store.update("1", {}), "invalid", "update needs a new text or a new status"],
          [() => store.update("1", { text: "" }), "invalid", "todo text must be a non-empty string"],
        ];
        for (const [op, code, message] of refusals) {
          await expect(op()).rejects.toMatchObject({ name: "StateError", code, message, path: store.path });
        }
        expect(await backend.todos().read()).toEqual(before);
      });

      it("refuses to grow past maxItems", async () => {
        const small = todos(backend, 2);
        await small.add("a");
        await small.add("b");
        await expect(small.add("c")).rejects.toThrow(
          "the todo list is full (2 items); remove finished items first",
        );
        await small.remove("1");
        expect((await small.add("c")).item.id).toBe("3");
      });

      it("gives concurrent adds from several handles distinct ids and keeps each writer's order", async () => {
        const ids: string[] = [];
        await concurrently(4, 10, async (w, i) => {
          ids.push((await todos(fixture.open()).add(`w${w} ${i}`)).item.id);
        });
        const items = await todos().list();
        expect(items).toHaveLength(40);
        expect(new Set(items.map((it) => it.id)).size).toBe(40);
        expect(new Set(ids)).toEqual(new Set(items.map((it) => it.id)));
        const texts = items.map((it) => it.text).filter((t) => t.startsWith("w2 "));
        expect(texts).toEqual(Array.from({ length: 10 }, (_, i) => `w2 ${i}`));
      });

      it("keeps at most one item in progress when writers start different items at once", async () => {
        const store = todos();
        for (let i = 0; i < 8; i++) await store.add(`item ${i}`);
        await concurrently(8, 2, async (w) => {
          await todos(fixture.open()).update(String(w + 1), { status: "in_progress" });
        });
        const items = await store.list();
        expect(items.filter((it) => it.status === "in_progress")).toHaveLength(1);
        expect(items.filter((it) => it.status === "pending")).toHaveLength(7);
      });

      it("loses no change when writers update different items at once", async () => {
        const store = todos();
        for (let i = 0; i < 8; i++) await store.add(`item ${i}`);
        await concurrently(8, 1, async (w) => {
          await todos(fixture.open()).update(String(w + 1), { text: `item ${w}, edited` });
        });
        expect((await store.list()).map((it) => it.text)).toEqual(
          Array.from({ length: 8 }, (_, i) => `item ${i}, edited`),
        );
      });
    });
  });
}
