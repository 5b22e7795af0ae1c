/**
 * @module state/memory-store
 * The key-value memory store: string values under validated keys, one JSON file per scope
 * (format `toolgate-memory` version 1, see STATE.md), safe under concurrent processes.
 */
import { StateError } from "./errors.js";
import { JsonStore, type StoreFormat, type StoreOptions } from "./json-store.js";

/** Keys: 1–128 characters from this set (safe in file names, URLs and shell words). */
export const MEMORY_KEY_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;
/** The store's own value cap (the memory tool sets a much smaller one). */
export const DEFAULT_MAX_VALUE_BYTES = 8 * 1024 * 1024;

/** One stored value. */
export interface MemoryEntry {
  key: string;
  value: string;
  /** ISO 8601 time of the last `set`. */
  updatedAt: string;
}

/** Options of {@link openMemoryStore}. */
export interface MemoryStoreOptions extends StoreOptions {
  /** Largest value in UTF-8 bytes (default 8 MiB). */
  maxValueBytes?: number;
}

/** A memory store over one file. Every method reads or changes the file itself; nothing is cached. */
export interface MemoryStore {
  /** The store file. */
  readonly path: string;
  /** The value of `key`, or `undefined` when it is not set. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value` (replacing any previous value). */
  set(key: string, value: string): Promise<void>;
  /** Removes `key`; `false` when it was not set. */
  delete(key: string): Promise<boolean>;
  /** All keys, sorted. */
  keys(): Promise<string[]>;
  /** All entries, sorted by key. */
  list(): Promise<MemoryEntry[]>;
}

type Entries = Map<string, { value: string; updatedAt: string }>;

/** Why `key` is not a valid memory key, or `undefined` when it is. */
export function memoryKeyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return "memory key must be a string";
  if (key.length === 0 || key.length > 128) {
    return `memory key must be 1 to 128 characters long (got ${key.length})`;
  }
  if (!MEMORY_KEY_PATTERN.test(key)) {
    return `memory key ${JSON.stringify(key)} may contain only letters, digits and _ . : / -`;
  }
  return undefined;
}

/** Why `value` is not a storable value under a cap of `maxBytes`, or `undefined` when it is. */
export function memoryValueProblem(value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== "string") return "memory value must be a string";
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > maxBytes) return `memory value is ${bytes} bytes; the limit is ${maxBytes} bytes`;
  return undefined;
}

/** The file format, version 1. Keys are written sorted so the file diffs well. */
export const memoryFormat: StoreFormat<Entries> = {
  kind: "toolgate-memory",
  version: 1,
  empty: () => new Map(),
  decode(document) {
    const raw = document.entries;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new Error(`"entries" must be an object`);
    }
    const entries: Entries = new Map();
    for (const [key, entry] of Object.entries(raw)) {
      const problem = memoryKeyProblem(key);
      if (problem) throw new Error(problem);
      const e = entry as { value?: unknown; updatedAt?: unknown } | null;
      if (e === null || typeof e !== "object" || typeof e.value !== "string") {
        throw new Error(`entry ${JSON.stringify(key)} must be an object with a string "value"`);
      }
      entries.set(key, {
        value: e.value,
        updatedAt: typeof e.updatedAt === "string" ? e.updatedAt : new Date(0).toISOString(),
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

function checkKey(key: string, path: string): void {
  const problem = memoryKeyProblem(key);
  if (problem) throw new StateError("invalid", problem, path);
}

/**
 * Opens the memory store in `path` (no IO until a method is called; the file and its directory are created
 * on the first change).
 * @param options `maxValueBytes` (default 8 MiB), `staleMs` (lock stale period, default 10 s), `timeoutMs`,
 *   `logger` (warnings, default stderr)
 * @example const store = openMemoryStore(memoryFilePath("project", { root })); await store.set("a", "1");
 */
export function openMemoryStore(path: string, options: MemoryStoreOptions = {}): MemoryStore {
  const file = new JsonStore(path, memoryFormat, options);
  const maxValueBytes = options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  return {
    path: file.path,
    async get(key) {
      checkKey(key, file.path);
      return (await file.read()).get(key)?.value;
    },
    async set(key, value) {
      checkKey(key, file.path);
      const problem = memoryValueProblem(value, maxValueBytes);
      if (problem) throw new StateError("invalid", problem, file.path);
      await file.update((entries) => {
        entries.set(key, { value, updatedAt: new Date().toISOString() });
        return { result: undefined, changed: true };
      });
    },
    async delete(key) {
      checkKey(key, file.path);
      return file.update((entries) => {
        const existed = entries.delete(key);
        return { result: existed, changed: existed };
      });
    },
    async keys() {
      return [...(await file.read()).keys()].sort();
    },
    async list() {
      const entries = await file.read();
      return [...entries.keys()].sort().map((key) => {
        const entry = entries.get(key) as { value: string; updatedAt: string };
        return { key, value: entry.value, updatedAt: entry.updatedAt };
      });
    },
  };
}
