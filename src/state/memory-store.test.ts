/**
 * The memory store on its file: every key form the rules accept or refuse, and the file's modes. Its API on
 * every backend — set/get/delete/list, values kept exactly, caps, meta, revisions, concurrent writers — is
 * the state backend contract (`src/test-support/state-backend-contract.ts`, run by `backend.test.ts`).
 */
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
