/**
 * The chat input history file on its own, in a real temp folder: newest first in memory, oldest first on
 * disk, repeats moved to the front, at most HISTORY_SIZE entries, long entries kept out of the file, torn
 * lines skipped, owner-only permissions, two sessions keeping each other's entries.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HISTORY_SIZE, historyFile, InputHistory, loadHistory, MAX_ENTRY_CHARS } from "./history.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-history-"));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const noError = (m: string) => {
  throw new Error(m);
};

describe("chat input history", () => {
  it("lives in the user state folder", () => {
    expect(historyFile({ XDG_CONFIG_HOME: "/x/config" })).toBe("/x/config/toolgate/state/chat-history.jsonl");
  });

  it("keeps entries newest first, moves a repeat to the front and writes them oldest first, owner-only", async () => {
    const file = join(dir, "a", "state", "chat-history.jsonl");
    const history = await InputHistory.open(file, noError);
    for (const entry of ["one", "two", "one", "three\nlines", "  "]) history.add(entry);
    await history.flush();
    expect(history.entries).toEqual(["three\nlines", "one", "two"]);
    expect(await readFile(file, "utf8")).toBe('"two"\n"one"\n"three\\nlines"\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await InputHistory.open(file, noError)).entries).toEqual(["three\nlines", "one", "two"]);
  });

  it(`keeps the newest ${HISTORY_SIZE} entries, and none longer than ${MAX_ENTRY_CHARS} characters in the file`, async () => {
    const file = join(dir, "b.jsonl");
    const history = await InputHistory.open(file, noError);
    for (let i = 0; i < HISTORY_SIZE + 20; i++) history.add(`task ${i}`);
    const long = "x".repeat(MAX_ENTRY_CHARS + 1);
    history.add(long);
    await history.flush();
    expect(history.entries).toHaveLength(HISTORY_SIZE);
    expect(history.entries[0]).toBe(long);
    const saved = await loadHistory(file);
    expect(saved).toHaveLength(HISTORY_SIZE);
    expect(saved.at(-1)).toBe(`task ${HISTORY_SIZE + 19}`);
    expect(saved[0]).toBe("task 20");
  });

  it("skips torn and foreign lines, and keeps another session's entries", async () => {
    const file = join(dir, "c.jsonl");
    await writeFile(file, '"first"\n{"not": "a string"}\n"torn\n"second"\n');
    const mine = await InputHistory.open(file, noError);
    expect(mine.entries).toEqual(["second", "first"]);
    const other = await InputHistory.open(file, noError);
    other.add("from the other session");
    await other.flush();
    mine.add("from mine");
    await mine.flush();
    expect(await loadHistory(file)).toEqual(["first", "second", "from the other session", "from mine"]);
  });

  it("reports a file it cannot write, once per entry, and keeps the entry for the session", async () => {
    const blocker = join(dir, "blocker");
    await writeFile(blocker, "a file where a folder should be");
    const errors: string[] = [];
    const history = await InputHistory.open(join(blocker, "state", "h.jsonl"), (m) => errors.push(m));
    history.add("kept anyway");
    await history.flush();
    expect(history.entries).toEqual(["kept anyway"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^input history not saved: /);
  });
});
