/**
 * The store file mechanics: fixtures of every format version, corrupt files moved aside with a warning,
 * newer formats refused untouched, leftover temp files removed, the written format pinned.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateError } from "./errors.js";
import { openMemoryStore } from "./memory-store.js";
import { openTodoStore } from "./todo-store.js";

const testdata = join(dirname(fileURLToPath(import.meta.url)), "testdata");
let dir: string;
let warnings: string[];
const logger = { warn: (m: string) => warnings.push(m) };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-json-store-"));
  warnings = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("fixtures of every format version", () => {
  it("reads memory.v1.json, including a key named __proto__", async () => {
    const file = join(dir, "memory.json");
    await copyFile(join(testdata, "memory.v1.json"), file);
    const store = openMemoryStore(file, { logger });
    expect(await store.keys()).toEqual(["__proto__", "build:command", "notes/style"]);
    expect(await store.get("notes/style")).toBe("tabs, not spaces\nsecond line — ünïcode");
    expect(await store.get("__proto__")).toBe("an ordinary key, not the prototype");
    expect(await store.get("toString")).toBeUndefined();
    expect((await store.list())[1]).toEqual({
      key: "build:command",
      value: "npm run build",
      updatedAt: "2025-01-02T10:00:00.000Z",
    });
    // Rewriting keeps the file byte-identical apart from the changed entry.
    await store.delete("build:command");
    await store.set("build:command", "npm run build");
    const written = JSON.parse(await readFile(file, "utf8"));
    const original = JSON.parse(await readFile(join(testdata, "memory.v1.json"), "utf8"));
    original.entries["build:command"].updatedAt = written.entries["build:command"].updatedAt;
    expect(written).toEqual(original);
    expect(warnings).toEqual([]);
  });

  it("reads todos.v1.json and continues its id counter", async () => {
    const file = join(dir, "todos.json");
    await copyFile(join(testdata, "todos.v1.json"), file);
    const store = openTodoStore(file, { logger });
    const items = await store.list();
    expect(items.map((it) => [it.id, it.status, it.text])).toEqual([
      ["1", "completed", "read the issue"],
      ["3", "in_progress", "write the store"],
      ["4", "pending", "benchmark it"],
    ]);
    expect((await store.add("ship it")).item.id).toBe("5");
    expect(warnings).toEqual([]);
  });
});

describe("the written format", () => {
  it("is pretty-printed JSON with version and kind, keys sorted", async () => {
    const file = join(dir, "state", "memory.json");
    const store = openMemoryStore(file);
    await store.set("zeta", "last");
    await store.set("alpha", "first");
    const text = await readFile(file, "utf8");
    const doc = JSON.parse(text);
    expect(text).toBe(
      [
        "{",
        '  "version": 1,',
        '  "kind": "toolgate-memory",',
        '  "entries": {',
        '    "alpha": {',
        '      "value": "first",',
        `      "updatedAt": "${doc.entries.alpha.updatedAt}"`,
        "    },",
        '    "zeta": {',
        '      "value": "last",',
        `      "updatedAt": "${doc.entries.zeta.updatedAt}"`,
        "    }",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });
});

describe("a store file that cannot be read is moved aside", () => {
  const cases: { note: string; content: string; reason: string }[] = [
    {
      note: "not JSON",
      content: '{"version": 1, "kind": "toolgate-memory", "entr',
      reason: "not valid JSON",
    },
    { note: "empty file", content: "", reason: "not valid JSON" },
    { note: "an array", content: "[1, 2]", reason: "not a JSON object" },
    {
      note: "another store's file",
      content: '{"version": 1, "kind": "toolgate-todos", "items": []}',
      reason: '"kind" is "toolgate-todos", expected "toolgate-memory"',
    },
    {
      note: "no version",
      content: '{"kind": "toolgate-memory", "entries": {}}',
      reason: '"version" is undefined, expected a positive integer',
    },
    {
      note: "entries not an object",
      content: '{"version": 1, "kind": "toolgate-memory", "entries": []}',
      reason: '"entries" must be an object',
    },
    {
      note: "a value that is not a string",
      content: '{"version": 1, "kind": "toolgate-memory", "entries": {"a": {"value": 3}}}',
      reason: 'entry "a" must be an object with a string "value"',
    },
    {
      note: "an invalid key",
      content: '{"version": 1, "kind": "toolgate-memory", "entries": {"a b": {"value": "x"}}}',
      reason: 'memory key "a b" may contain only letters, digits and _ . : / -',
    },
  ];

  it.each(cases)("$note", async ({ content, reason }) => {
    const file = join(dir, "memory.json");
    await writeFile(file, content);
    const store = openMemoryStore(file, { logger });
    await store.set("fresh", "1");
    const names = (await readdir(dir)).sort();
    expect(names).toHaveLength(2);
    const aside = names.find((n) => n.startsWith("memory.json.corrupt-")) as string;
    expect(aside).toMatch(/^memory\.json\.corrupt-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(await readFile(join(dir, aside), "utf8")).toBe(content);
    expect(await store.keys()).toEqual(["fresh"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`state file ${file} could not be read (${reason}`);
    expect(warnings[0]).toContain(`moved it to ${join(dir, aside)} and started empty`);
  });

  it("also on a read: the reader gets an empty store and the file is kept aside", async () => {
    const file = join(dir, "todos.json");
    await writeFile(file, '{"version": 1, "kind": "toolgate-todos", "items": [{"id": "1"}]}');
    expect(await openTodoStore(file, { logger }).list()).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(`state file ${file} could not be read (item 1 has no "text")`),
    ]);
    expect((await readdir(dir)).filter((n) => n.startsWith("todos.json.corrupt-"))).toHaveLength(1);
  });
});

describe("a newer format version", () => {
  it("is refused with a clear error and left untouched", async () => {
    const file = join(dir, "memory.json");
    const content = '{"version": 2, "kind": "toolgate-memory", "entries": {}, "future": true}';
    await writeFile(file, content);
    const store = openMemoryStore(file, { logger });
    const expected = `${file} has format version 2, newer than this toolgate reads (1); upgrade toolgate`;
    await expect(store.set("a", "1")).rejects.toThrow(expected);
    await expect(store.keys()).rejects.toMatchObject({ code: "newer_format", path: file });
    await expect(store.keys()).rejects.toBeInstanceOf(StateError);
    expect(await readFile(file, "utf8")).toBe(content);
    expect(await readdir(dir)).toEqual(["memory.json"]);
  });
});

describe("leftover temp files", () => {
  it("are removed by the next writer; other files are not", async () => {
    const state = join(dir, "state");
    await mkdir(state);
    const leftovers = [".memory.json.0123456789ab.tmp", ".memory.json.ffffffffffff.tmp"];
    const keep = [".todos.json.0123456789ab.tmp", ".memory.json.notatempfile.tmp", "notes.txt"];
    for (const name of [...leftovers, ...keep]) await writeFile(join(state, name), "x");
    await openMemoryStore(join(state, "memory.json")).set("a", "1");
    expect((await readdir(state)).sort()).toEqual([...keep, "memory.json"].sort());
  });
});
