/**
 * @module state/in-process-backend
 * A state backend in this process's memory, for hosts that keep no files and for tests. It works as a
 * remote store does: reading and writing are separate steps, and a todo change is written only if the
 * list's revision is still the one it read — otherwise it is run again on the newer list (optimistic
 * concurrency, the path a Redis backend takes).
 */
import type {
  Change,
  MemoryRecord,
  MemoryRecords,
  StateBackend,
  TodoList,
  TodoRecords,
  WriteOutcome,
} from "./backend.js";
import type { StateScope } from "./paths.js";

function memoryRecords(scope: StateScope): MemoryRecords {
  const records = new Map<string, MemoryRecord>();
  let counter = 0;
  const copy = (record: MemoryRecord | undefined) => record && structuredClone(record);
  const matches = (current: MemoryRecord | undefined, ifRevision: string | null | undefined) =>
    ifRevision === undefined ||
    (current === undefined ? ifRevision === null : current.revision === ifRevision);
  const refused = (current: MemoryRecord | undefined): { ok: false; current?: MemoryRecord } =>
    current ? { ok: false, current: structuredClone(current) } : { ok: false };
  return {
    path: `in-process:${scope}:memory`,
    async get(key) {
      return copy(records.get(key));
    },
    async list() {
      return [...records.keys()].sort().map((key) => copy(records.get(key)) as MemoryRecord);
    },
    async put(key, write, ifRevision): Promise<WriteOutcome<MemoryRecord>> {
      const current = records.get(key);
      if (!matches(current, ifRevision)) return refused(current);
      counter += 1;
      const record: MemoryRecord = { key, ...structuredClone(write), revision: String(counter) };
      if (record.meta === undefined) delete record.meta;
      records.set(key, record);
      return { ok: true, value: structuredClone(record) };
    },
    async delete(key, ifRevision): Promise<WriteOutcome<boolean>> {
      const current = records.get(key);
      if (!matches(current, ifRevision)) return refused(current);
      return { ok: true, value: records.delete(key) };
    },
  };
}

function todoRecords(): TodoRecords {
  let stored: TodoList = { nextId: 1, items: [] };
  let revision = 0;
  return {
    path: "in-process:project:todos",
    async read() {
      return { list: structuredClone(stored), revision: String(revision) };
    },
    async update<R>(change: (list: TodoList) => Change<R>): Promise<R> {
      for (;;) {
        const seen = revision;
        const list = structuredClone(stored);
        // The await lets other updates run between this read and the write below, as a network would.
        const { result, changed } = await change(list);
        if (!changed) return result;
        if (revision !== seen) continue; // Someone wrote meanwhile: run the change again on their list.
        stored = list;
        revision += 1;
        return result;
      }
    },
  };
}

/**
 * A backend in this process's memory: nothing is written to disk and everything is gone when the process
 * ends. Revisions are counters.
 * @example const gate = await createToolgate({ state: createInProcessStateBackend() });
 */
export function createInProcessStateBackend(): StateBackend {
  const memory = new Map<StateScope, MemoryRecords>();
  const todos = todoRecords();
  return {
    memory(scope) {
      let records = memory.get(scope);
      if (!records) {
        records = memoryRecords(scope);
        memory.set(scope, records);
      }
      return records;
    },
    todos: () => todos,
  };
}
