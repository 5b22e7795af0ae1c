/** The memory store's API: set/get/delete/list, key and value validation, persistence across opens. */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryKeyProblem, openMemoryStore } from "./memory-store.js";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-memory-store-"));
  file = join(dir, "deep", "state", "memory.json");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("memory store", () => {
  it("sets, gets, lists and deletes, persisting across opens", async () => {
    const store = openMemoryStore(file);
    expect(await store.keys()).toEqual([]);
    expect(await store.get("missing")).toBeUndefined();
    await store.set("b", "two");
    await store.set("a", "one");
    await store.set("b", "TWO");
    const again = openMemoryStore(file);
    expect(await again.get("b")).toBe("TWO");
    expect(await again.keys()).toEqual(["a", "b"]);
    const list = await again.list();
    expect(list.map(({ key, value }) => [key, value])).toEqual([
      ["a", "one"],
      ["b", "TWO"],
    ]);
    expect(Date.parse(list[0]?.updatedAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(await again.delete("a")).toBe(true);
    expect(await again.delete("a")).toBe(false);
    expect(await store.keys()).toEqual(["b"]);
  });

  it("stores the empty string, unicode and newlines exactly", async () => {
    const store = openMemoryStore(file);
    const values = ["", "line 1\nline 2\r\n", "ünïcödé — 日本語 🎉", '{"json": "inside"}', "\u0000nul"];
    for (const [i, v] of values.entries()) await store.set(`k${i}`, v);
    for (const [i, v] of values.entries()) expect(await openMemoryStore(file).get(`k${i}`)).toBe(v);
  });

  it("keeps concurrent sets from one process (an in-process queue per file)", async () => {
    const store = openMemoryStore(file);
    const other = openMemoryStore(file);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? store : other).set(`k${String(i).padStart(2, "0")}`, `${i}`),
      ),
    );
    expect(await store.keys()).toHaveLength(40);
  });

  it("caps values in UTF-8 bytes", async () => {
    const store = openMemoryStore(file, { maxValueBytes: 10 });
    await store.set("ok", "1234567890");
    await expect(store.set("big", "ééééééé")).rejects.toThrow(
      "memory value is 14 bytes; the limit is 10 bytes",
    );
    await expect(store.set("big", "ééééééé")).rejects.toMatchObject({ code: "invalid" });
    expect(await store.keys()).toEqual(["ok"]);
  });
});

describe("memory keys", () => {
  const valid = ["a", "A-z_0.9", "proj:build/cmd", "__proto__", "constructor", "x".repeat(128), "..", "/"];
  it.each(valid)("accepts %j", async (key) => {
    expect(memoryKeyProblem(key)).toBeUndefined();
    const store = openMemoryStore(file);
    await store.set(key, "v");
    expect(await store.get(key)).toBe("v");
    expect(await store.keys()).toEqual([key]);
  });

  const invalid: [string, unknown, string][] = [
    ["empty", "", "memory key must be 1 to 128 characters long (got 0)"],
    ["too long", "x".repeat(129), "memory key must be 1 to 128 characters long (got 129)"],
    ["a space", "a b", 'memory key "a b" may contain only letters, digits and _ . : / -'],
    ["a newline", "a\nb", 'memory key "a\\nb" may contain only letters, digits and _ . : / -'],
    ["a backslash", "a\\b", 'memory key "a\\\\b" may contain only letters, digits and _ . : / -'],
    ["non-ASCII letters", "ключ", 'memory key "ключ" may contain only letters, digits and _ . : / -'],
    ["a NUL", "a\u0000", 'memory key "a\\u0000" may contain only letters, digits and _ . : / -'],
    [
      "shell characters",
      "$(rm -rf)",
      'memory key "$(rm -rf)" may contain only letters, digits and _ . : / -',
    ],
    ["not a string", 42, "memory key must be a string"],
  ];
  it.each(invalid)("refuses %s", async (_note, key, message) => {
    expect(memoryKeyProblem(key)).toBe(message);
    const store = openMemoryStore(file);
    await expect(store.set(key as string, "v")).rejects.toThrow(message);
    await expect(store.get(key as string)).rejects.toThrow(message);
    await expect(store.delete(key as string)).rejects.toThrow(message);
  });
});

describe("file modes", () => {
  it("makes the new state directory and the store file private, not their parents", async () => {
    await openMemoryStore(file).set("a", "1");
    expect((await stat(join(dir, "deep", "state"))).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "deep"))).mode & 0o777).toBe(0o777 & ~process.umask());
  });
});
