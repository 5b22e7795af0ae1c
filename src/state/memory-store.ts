/**
 * @module state/memory-store
 * The memory store: string values (with optional metadata) under validated keys, over any state backend's
 * memory records. The rules and every message live here, once; `openMemoryStore` is the file backend's
 * store for one file.
 */
import type { MemoryRecord, MemoryRecords, StateMeta } from "./backend.js";
import { StateError } from "./errors.js";
import { fileMemoryRecords } from "./file-backend.js";
import type { StoreOptions } from "./json-store.js";
import { DEFAULT_MAX_VALUE_BYTES, memoryKeyProblem, memoryMetaProblem, memoryValueProblem } from "./rules.js";

export {
  DEFAULT_MAX_VALUE_BYTES,
  MEMORY_KEY_PATTERN,
  memoryKeyProblem,
  memoryValueProblem,
} from "./rules.js";

/** One stored value, as listings show it. */
export interface MemoryEntry {
  key: string;
  value: string;
  /** ISO 8601 time of the last `set`. */
  updatedAt: string;
  /** The metadata stored with the value, when it has any. */
  meta?: StateMeta;
}

/** The rules' options. */
export interface MemoryRules {
  /** Largest value in UTF-8 bytes (default 8 MiB). */
  maxValueBytes?: number;
}

/** Options of {@link openMemoryStore}: the rules and the file's (lock, logger). */
export interface MemoryStoreOptions extends StoreOptions, MemoryRules {}

/** Options of a conditional write. */
export interface MemoryWriteOptions {
  /** Kept with the value and returned unchanged. */
  meta?: StateMeta;
  /**
   * Write only if the key's record still has this revision (from `read`); `null`: only if the key is not
   * set. Otherwise the write fails with a `conflict` StateError and changes nothing.
   */
  ifRevision?: string | null;
}

/** A memory store. Every method reads or changes the backend itself; nothing is cached. */
export interface MemoryStore {
  /** Where the values live (the store file, for the file backend). */
  readonly path: string;
  /** The value of `key`, or `undefined` when it is not set. */
  get(key: string): Promise<string | undefined>;
  /** The whole record of `key` (value, meta, updatedAt, revision), or `undefined`. */
  read(key: string): Promise<MemoryRecord | undefined>;
  /** Sets `key` to `value` (replacing any previous value and meta); returns the new record. */
  set(key: string, value: string, options?: MemoryWriteOptions): Promise<MemoryRecord>;
  /** Removes `key`; `false` when it was not set. With `ifRevision`, only if the record still has it. */
  delete(key: string, options?: { ifRevision?: string }): Promise<boolean>;
  /** All keys, sorted. */
  keys(): Promise<string[]>;
  /** All entries, sorted by key. */
  list(): Promise<MemoryEntry[]>;
}

function conflict(path: string, key: string, expected: string | null, current?: MemoryRecord): StateError {
  const now = current
    ? expected === null
      ? "it is set now"
      : `its revision is ${current.revision} now, not ${expected}`
    : "it is not set now";
  return new StateError(
    "conflict",
    `memory key ${JSON.stringify(key)} changed since it was read (${now}); read it again`,
    path,
  );
}

function entryOf({ key, value, updatedAt, meta }: MemoryRecord): MemoryEntry {
  return meta === undefined ? { key, value, updatedAt } : { key, value, updatedAt, meta };
}

/**
 * The memory store over a backend's records.
 * @param rules `maxValueBytes` (default 8 MiB)
 * @example const memory = createMemoryStore(gate.state.memory("project")); await memory.set("a", "1");
 */
export function createMemoryStore(records: MemoryRecords, rules: MemoryRules = {}): MemoryStore {
  const { path } = records;
  const maxValueBytes = rules.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
  const check = (problem: string | undefined) => {
    if (problem) throw new StateError("invalid", problem, path);
  };
  return {
    path,
    async get(key) {
      check(memoryKeyProblem(key));
      return (await records.get(key))?.value;
    },
    async read(key) {
      check(memoryKeyProblem(key));
      return records.get(key);
    },
    async set(key, value, options = {}) {
      check(memoryKeyProblem(key));
      check(memoryValueProblem(value, maxValueBytes));
      if (options.meta !== undefined) check(memoryMetaProblem(options.meta));
      const write = {
        value,
        updatedAt: new Date().toISOString(),
        ...(options.meta === undefined ? {} : { meta: options.meta }),
      };
      const outcome = await records.put(key, write, options.ifRevision);
      if (!outcome.ok) throw conflict(path, key, options.ifRevision ?? null, outcome.current);
      return outcome.value;
    },
    async delete(key, options = {}) {
      check(memoryKeyProblem(key));
      const outcome = await records.delete(key, options.ifRevision);
      if (!outcome.ok) throw conflict(path, key, options.ifRevision ?? null, outcome.current);
      return outcome.value;
    },
    async keys() {
      return (await records.list()).map((record) => record.key);
    },
    async list() {
      return (await records.list()).map(entryOf);
    },
  };
}

/**
 * Opens the memory store in the file `path` (no IO until a method is called; the file and its directory are
 * created on the first change).
 * @param options `maxValueBytes` (default 8 MiB), `staleMs` (lock stale period, default 10 s), `timeoutMs`,
 *   `logger` (warnings, default stderr)
 * @example const store = openMemoryStore(memoryFilePath("project", { root })); await store.set("a", "1");
 */
export function openMemoryStore(path: string, options: MemoryStoreOptions = {}): MemoryStore {
  return createMemoryStore(fileMemoryRecords(path, options), options);
}
