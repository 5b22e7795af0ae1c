/**
 * @module state/file-backend
 * The default state backend: one JSON file per store (`<root>/.toolgate/state/`, the user's state folder),
 * every change made under the file's cross-process lock (`json-store.ts`). A record's revision is a digest of
 * its content, so the file format carries no counter and a hand edit changes it too.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../utils/index.js";
import type {
  Change,
  MemoryRecord,
  MemoryRecords,
  StateBackend,
  TodoList,
  TodoRecords,
  WriteOutcome,
} from "./backend.js";
import { type MemoryEntries, type MemoryFileEntry, memoryFormat, todoFormat } from "./file-formats.js";
import { JsonStore, type StoreOptions } from "./json-store.js";
import { memoryFilePath, type StateScope, todosFilePath } from "./paths.js";

/** Options of {@link createFileStateBackend}. */
export interface FileStateBackendOptions extends StoreOptions {
  /** The workspace root: project state lives in `<root>/.toolgate/state/`. */
  root: string;
  /** The user state directory (default `userStateDir()`); tests point it at a temp folder. */
  userDir?: string;
}

/** The revision of a stored value: a digest of its canonical JSON. */
export function contentRevision(content: unknown): string {
  return createHash("sha256").update(canonicalJson(content)).digest("base64url").slice(0, 16);
}

function recordOf(key: string, entry: MemoryFileEntry): MemoryRecord {
  const content = {
    value: entry.value,
    updatedAt: entry.updatedAt,
    ...(entry.meta ? { meta: entry.meta } : {}),
  };
  return { key, ...structuredClone(content), revision: contentRevision(content) };
}

/** Whether the entry now under a key is the one a conditional write expects (`null`: none). */
function expected(key: string, entry: MemoryFileEntry | undefined, ifRevision: string | null | undefined) {
  if (ifRevision === undefined) return true;
  if (entry === undefined) return ifRevision === null;
  return ifRevision !== null && recordOf(key, entry).revision === ifRevision;
}

/**
 * The memory records in one file (no IO until a method is called; the file and its directory are made on
 * the first change).
 */
export function fileMemoryRecords(path: string, options: StoreOptions = {}): MemoryRecords {
  const file = new JsonStore(path, memoryFormat, options);
  /** Applies `apply` under the lock when `key`'s entry is the one expected, else reports what is there. */
  const conditionally = <T>(
    key: string,
    ifRevision: string | null | undefined,
    apply: (entries: MemoryEntries) => { value: T; changed: boolean },
  ) =>
    file.update((entries): Change<WriteOutcome<T>> => {
      const current = entries.get(key);
      if (!expected(key, current, ifRevision)) {
        return {
          result: current ? { ok: false, current: recordOf(key, current) } : { ok: false },
          changed: false,
        };
      }
      const { value, changed } = apply(entries);
      return { result: { ok: true, value }, changed };
    });
  return {
    path: file.path,
    async get(key) {
      const entry = (await file.read()).get(key);
      return entry && recordOf(key, entry);
    },
    async list() {
      const entries = await file.read();
      return [...entries.keys()].sort().map((key) => recordOf(key, entries.get(key) as MemoryFileEntry));
    },
    put: (key, write, ifRevision) =>
      conditionally(key, ifRevision, (entries) => {
        const entry: MemoryFileEntry = {
          value: write.value,
          updatedAt: write.updatedAt,
          ...(write.meta ? { meta: structuredClone(write.meta) } : {}),
        };
        entries.set(key, entry);
        return { value: recordOf(key, entry), changed: true };
      }),
    delete: (key, ifRevision) =>
      conditionally(key, ifRevision, (entries) => {
        const existed = entries.delete(key);
        return { value: existed, changed: existed };
      }),
  };
}

/** The todo list in one file. `update` runs its change once, under the lock. */
export function fileTodoRecords(path: string, options: StoreOptions = {}): TodoRecords {
  const file = new JsonStore<TodoList>(path, todoFormat, options);
  return {
    path: file.path,
    async read() {
      const list = await file.read();
      return { list, revision: contentRevision(list) };
    },
    update: (change) => file.update(change),
  };
}

/**
 * The file backend: memory in `memory.json` and todos in `todos.json` of the project's or the user's state
 * folder, safe under concurrent processes.
 * @param options `root` (the workspace), `userDir`, `staleMs` and `timeoutMs` (the lock), `logger`
 * @example const state = createFileStateBackend({ root: process.cwd() }); await state.todos().read();
 */
export function createFileStateBackend(options: FileStateBackendOptions): StateBackend {
  const { root, userDir, ...store } = options;
  const where = { root, ...(userDir === undefined ? {} : { userDir }) };
  const memory = new Map<StateScope, MemoryRecords>();
  let todos: TodoRecords | undefined;
  return {
    memory(scope) {
      let records = memory.get(scope);
      if (!records) {
        records = fileMemoryRecords(memoryFilePath(scope, where), store);
        memory.set(scope, records);
      }
      return records;
    },
    todos() {
      todos ??= fileTodoRecords(todosFilePath("project", where), store);
      return todos;
    },
  };
}
