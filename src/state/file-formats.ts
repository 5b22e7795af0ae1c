/**
 * @module state/file-formats
 * How the file backend lays memory and todos out in JSON (format version 1; see docs/state.md and the
 * fixtures in `testdata/`): decoding refuses what the rules would refuse, encoding sorts memory keys so the
 * file diffs well.
 */
import { isPlainObject } from "../utils/index.js";
import type { StateMeta, TodoItem, TodoList } from "./backend.js";
import type { StoreFormat } from "./json-store.js";
import { isTodoStatus, memoryKeyProblem } from "./rules.js";

/** One memory value as the file keeps it. */
export interface MemoryFileEntry {
  value: string;
  updatedAt: string;
  meta?: StateMeta;
}

/** The memory file's state: key → entry. */
export type MemoryEntries = Map<string, MemoryFileEntry>;

const EPOCH = new Date(0).toISOString();

/** The memory file, version 1 (`meta` is optional in an entry). */
export const memoryFormat: StoreFormat<MemoryEntries> = {
  kind: "toolgate-memory",
  version: 1,
  empty: () => new Map(),
  decode(document) {
    const raw = document.entries;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new Error(`"entries" must be an object`);
    }
    const entries: MemoryEntries = new Map();
    for (const [key, entry] of Object.entries(raw)) {
      const problem = memoryKeyProblem(key);
      if (problem) throw new Error(problem);
      const e = entry as { value?: unknown; updatedAt?: unknown; meta?: unknown } | null;
      if (e === null || typeof e !== "object" || typeof e.value !== "string") {
        throw new Error(`entry ${JSON.stringify(key)} must be an object with a string "value"`);
      }
      if (e.meta !== undefined && !isPlainObject(e.meta)) {
        throw new Error(`entry ${JSON.stringify(key)} has a "meta" that is not an object`);
      }
      entries.set(key, {
        value: e.value,
        updatedAt: typeof e.updatedAt === "string" ? e.updatedAt : EPOCH,
        ...(e.meta === undefined ? {} : { meta: e.meta as StateMeta }),
      });
    }
    return entries;
  },
  encode(entries) {
    // Object.fromEntries defines own properties, so a key like "__proto__" stays an ordinary key.
    const sorted = [...entries.keys()].sort();
    return { entries: Object.fromEntries(sorted.map((key) => [key, entries.get(key)])) };
  },
};

/** The todo file, version 1. */
export const todoFormat: StoreFormat<TodoList> = {
  kind: "toolgate-todos",
  version: 1,
  empty: () => ({ nextId: 1, items: [] }),
  decode(document) {
    if (!Array.isArray(document.items)) throw new Error(`"items" must be an array`);
    const seen = new Set<string>();
    let highest = 0;
    const items = document.items.map((raw: unknown, index: number): TodoItem => {
      const item = raw as Partial<TodoItem> | null;
      if (item === null || typeof item !== "object") throw new Error(`item ${index + 1} is not an object`);
      if (typeof item.id !== "string" || item.id === "" || seen.has(item.id)) {
        throw new Error(`item ${index + 1} has a missing or duplicate "id"`);
      }
      if (typeof item.text !== "string") throw new Error(`item ${item.id} has no "text"`);
      if (!isTodoStatus(item.status)) throw new Error(`item ${item.id} has an unknown status`);
      seen.add(item.id);
      if (/^\d+$/.test(item.id)) highest = Math.max(highest, Number(item.id));
      return {
        id: item.id,
        text: item.text,
        status: item.status,
        createdAt: typeof item.createdAt === "string" ? item.createdAt : EPOCH,
        updatedAt: typeof item.updatedAt === "string" ? item.updatedAt : EPOCH,
      };
    });
    // A hand-edited file may lag behind its own ids: never hand out an id that is already taken.
    const stored = Number.isSafeInteger(document.nextId) ? (document.nextId as number) : 1;
    return { nextId: Math.max(stored, highest + 1), items };
  },
  encode: (state) => ({ nextId: state.nextId, items: state.items }),
};
