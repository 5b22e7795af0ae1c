/**
 * @module state/todo-store
 * The todo list store: items with short ids from a counter kept in the file (unique across processes
 * because it only advances under the lock), statuses pending / in_progress / completed, at most one in progress.
 */
import { StateError } from "./errors.js";
import { JsonStore, type StoreFormat, type StoreOptions } from "./json-store.js";

/** A todo's status. */
export type TodoStatus = "pending" | "in_progress" | "completed";
/** Every status, in display order. */
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];
/** Longest todo text, in characters. */
export const MAX_TODO_TEXT = 2_000;
/** Default cap on the number of items (the store refuses to grow past it). */
export const DEFAULT_MAX_TODOS = 1_000;

/** One todo. */
export interface TodoItem {
  /** Short decimal id ("1", "2", ...), never reused within one file. */
  id: string;
  text: string;
  status: TodoStatus;
  createdAt: string;
  updatedAt: string;
}

/** What a change did: the item, and the item moved back to `pending` because this one went in progress. */
export interface TodoChange {
  item: TodoItem;
  demoted?: TodoItem;
}

/** Options of {@link openTodoStore}. */
export interface TodoStoreOptions extends StoreOptions {
  /** Most items the list may hold (default 1,000). */
  maxItems?: number;
}

/**
 * A todo store over one file. Unknown ids and invalid text/status throw {@link StateError} (`not_found`,
 * `invalid`). Setting an item `in_progress` moves the previous in-progress item back to `pending`
 * (reported as `demoted`), so at most one item is ever in progress.
 */
export interface TodoStore {
  readonly path: string;
  /** All items in creation order. */
  list(): Promise<TodoItem[]>;
  /** One item, or `undefined`. */
  get(id: string): Promise<TodoItem | undefined>;
  /** Appends a new item (status `pending` unless given). */
  add(text: string, status?: TodoStatus): Promise<TodoChange>;
  /** Changes an item's text and/or status. */
  update(id: string, patch: { text?: string; status?: TodoStatus }): Promise<TodoChange>;
  /** Marks an item completed (idempotent). */
  complete(id: string): Promise<TodoItem>;
  /** Deletes an item and returns it. */
  remove(id: string): Promise<TodoItem>;
}

interface TodoState {
  nextId: number;
  items: TodoItem[];
}

/** Why `text` is not valid todo text, or `undefined`. */
export function todoTextProblem(text: unknown): string | undefined {
  if (typeof text !== "string" || text.trim() === "") return "todo text must be a non-empty string";
  if (text.length > MAX_TODO_TEXT) {
    return `todo text is ${text.length} characters; the limit is ${MAX_TODO_TEXT}`;
  }
  return undefined;
}

function isStatus(value: unknown): value is TodoStatus {
  return typeof value === "string" && (TODO_STATUSES as readonly string[]).includes(value);
}

/** The file format, version 1. */
export const todoFormat: StoreFormat<TodoState> = {
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
      if (!isStatus(item.status)) throw new Error(`item ${item.id} has an unknown status`);
      seen.add(item.id);
      if (/^\d+$/.test(item.id)) highest = Math.max(highest, Number(item.id));
      const epoch = new Date(0).toISOString();
      return {
        id: item.id,
        text: item.text,
        status: item.status,
        createdAt: typeof item.createdAt === "string" ? item.createdAt : epoch,
        updatedAt: typeof item.updatedAt === "string" ? item.updatedAt : epoch,
      };
    });
    // A hand-edited file may lag behind its own ids: never hand out an id that is already taken.
    const stored = Number.isSafeInteger(document.nextId) ? (document.nextId as number) : 1;
    return { nextId: Math.max(stored, highest + 1), items };
  },
  encode: (state) => ({ nextId: state.nextId, items: state.items }),
};

/**
 * Opens the todo store in `path` (no IO until a method is called).
 * @param options `maxItems` (default 1,000), `staleMs`, `timeoutMs`, `logger`
 * @example const todos = openTodoStore(todosFilePath("project", { root })); await todos.add("write tests");
 */
export function openTodoStore(path: string, options: TodoStoreOptions = {}): TodoStore {
  const file = new JsonStore(path, todoFormat, options);
  const maxItems = options.maxItems ?? DEFAULT_MAX_TODOS;
  const fail = (code: "invalid" | "not_found", message: string) => new StateError(code, message, file.path);
  const find = (state: TodoState, id: string) => {
    const item = state.items.find((it) => it.id === id);
    if (!item) throw fail("not_found", `no todo with id ${JSON.stringify(id)}`);
    return item;
  };
  const setStatus = (state: TodoState, item: TodoItem, status: TodoStatus, now: string) => {
    let demoted: TodoItem | undefined;
    if (status === "in_progress") {
      const current = state.items.find((it) => it.status === "in_progress" && it.id !== item.id);
      if (current) {
        current.status = "pending";
        current.updatedAt = now;
        demoted = { ...current };
      }
    }
    item.status = status;
    return demoted;
  };
  const checkText = (text: unknown) => {
    const problem = todoTextProblem(text);
    if (problem) throw fail("invalid", problem);
  };
  const checkStatus = (status: unknown) => {
    if (!isStatus(status)) {
      throw fail("invalid", `unknown todo status ${JSON.stringify(status)}; use ${TODO_STATUSES.join(", ")}`);
    }
  };
  const changed = (item: TodoItem, demoted?: TodoItem) => ({
    result: demoted ? { item: { ...item }, demoted } : { item: { ...item } },
    changed: true,
  });

  return {
    path: file.path,
    async list() {
      return (await file.read()).items;
    },
    async get(id) {
      return (await file.read()).items.find((it) => it.id === id);
    },
    async add(text, status = "pending") {
      checkText(text);
      checkStatus(status);
      return file.update((state) => {
        if (state.items.length >= maxItems) {
          throw fail("invalid", `the todo list is full (${maxItems} items); remove finished items first`);
        }
        const now = new Date().toISOString();
        const item: TodoItem = {
          id: String(state.nextId),
          text,
          status: "pending",
          createdAt: now,
          updatedAt: now,
        };
        state.nextId += 1;
        state.items.push(item);
        return changed(item, setStatus(state, item, status, now));
      });
    },
    async update(id, patch) {
      if (patch.text === undefined && patch.status === undefined) {
        throw fail("invalid", "update needs a new text or a new status");
      }
      if (patch.text !== undefined) checkText(patch.text);
      if (patch.status !== undefined) checkStatus(patch.status);
      return file.update((state) => {
        const item = find(state, id);
        const now = new Date().toISOString();
        if (patch.text !== undefined) item.text = patch.text;
        const demoted = patch.status === undefined ? undefined : setStatus(state, item, patch.status, now);
        item.updatedAt = now;
        return changed(item, demoted);
      });
    },
    async complete(id) {
      return file.update((state) => {
        const item = find(state, id);
        if (item.status === "completed") return { result: { ...item }, changed: false };
        item.status = "completed";
        item.updatedAt = new Date().toISOString();
        return { result: { ...item }, changed: true };
      });
    },
    async remove(id) {
      return file.update((state) => {
        const item = find(state, id);
        state.items = state.items.filter((it) => it !== item);
        return { result: item, changed: true };
      });
    },
  };
}
