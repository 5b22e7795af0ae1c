/**
 * @module state/todo-store
 * The todo list's rules, over any state backend's todo records: short ids from a counter kept with the list
 * (unique because it only advances in an atomic update), statuses pending / in_progress / completed, at
 * most one in progress, and every message. `openTodoStore` is the file backend's store for one file.
 */
import type { TodoItem, TodoList, TodoRecords, TodoStatus } from "./backend.js";
import { StateError } from "./errors.js";
import { fileTodoRecords } from "./file-backend.js";
import type { StoreOptions } from "./json-store.js";
import { DEFAULT_MAX_TODOS, isTodoStatus, TODO_STATUSES, todoTextProblem } from "./rules.js";

export type { TodoItem, TodoStatus } from "./backend.js";
export { DEFAULT_MAX_TODOS, MAX_TODO_TEXT, TODO_STATUSES, todoTextProblem } from "./rules.js";

/** What a change did: the item, and the item moved back to `pending` because this one went in progress. */
export interface TodoChange {
  item: TodoItem;
  demoted?: TodoItem;
}

/** The rules' options. */
export interface TodoRules {
  /** Most items the list may hold (default 1,000). */
  maxItems?: number;
}

/** Options of {@link openTodoStore}: the rules and the file's (lock, logger). */
export interface TodoStoreOptions extends StoreOptions, TodoRules {}

/**
 * A todo store. Unknown ids and invalid text/status throw {@link StateError} (`not_found`, `invalid`).
 * Setting an item `in_progress` moves the previous in-progress item back to `pending` (reported as
 * `demoted`), so at most one item is ever in progress.
 */
export interface TodoStore {
  /** Where the list lives (the store file, for the file backend). */
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

/**
 * The todo store over a backend's records. Each change is a pure function of the list it is given, so a
 * backend may run it again on a newer list.
 * @param rules `maxItems` (default 1,000)
 * @example const todos = createTodoStore(gate.state.todos()); await todos.add("write tests");
 */
export function createTodoStore(records: TodoRecords, rules: TodoRules = {}): TodoStore {
  const { path } = records;
  const maxItems = rules.maxItems ?? DEFAULT_MAX_TODOS;
  const fail = (code: "invalid" | "not_found", message: string) => new StateError(code, message, path);
  const find = (list: TodoList, id: string) => {
    const item = list.items.find((it) => it.id === id);
    if (!item) throw fail("not_found", `no todo with id ${JSON.stringify(id)}`);
    return item;
  };
  const setStatus = (list: TodoList, item: TodoItem, status: TodoStatus, now: string) => {
    let demoted: TodoItem | undefined;
    if (status === "in_progress") {
      const current = list.items.find((it) => it.status === "in_progress" && it.id !== item.id);
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
    if (!isTodoStatus(status)) {
      throw fail("invalid", `unknown todo status ${JSON.stringify(status)}; use ${TODO_STATUSES.join(", ")}`);
    }
  };
  const changed = (item: TodoItem, demoted?: TodoItem) => ({
    result: demoted ? { item: { ...item }, demoted } : { item: { ...item } },
    changed: true,
  });

  return {
    path,
    async list() {
      return (await records.read()).list.items;
    },
    async get(id) {
      return (await records.read()).list.items.find((it) => it.id === id);
    },
    async add(text, status = "pending") {
      checkText(text);
      checkStatus(status);
      return records.update((list) => {
        if (list.items.length >= maxItems) {
          throw fail("invalid", `the todo list is full (${maxItems} items); remove finished items first`);
        }
        const now = new Date().toISOString();
        const item: TodoItem = {
          id: String(list.nextId),
          text,
          status: "pending",
          createdAt: now,
          updatedAt: now,
        };
        list.nextId += 1;
        list.items.push(item);
        return changed(item, setStatus(list, item, status, now));
      });
    },
    async update(id, patch) {
      if (patch.text === undefined && patch.status === undefined) {
        throw fail("invalid", "update needs a new text or a new status");
      }
      if (patch.text !== undefined) checkText(patch.text);
      if (patch.status !== undefined) checkStatus(patch.status);
      return records.update((list) => {
        const item = find(list, id);
        const now = new Date().toISOString();
        if (patch.text !== undefined) item.text = patch.text;
        const demoted = patch.status === undefined ? undefined : setStatus(list, item, patch.status, now);
        item.updatedAt = now;
        return changed(item, demoted);
      });
    },
    async complete(id) {
      return records.update((list) => {
        const item = find(list, id);
        if (item.status === "completed") return { result: { ...item }, changed: false };
        item.status = "completed";
        item.updatedAt = new Date().toISOString();
        return { result: { ...item }, changed: true };
      });
    },
    async remove(id) {
      return records.update((list) => {
        const item = find(list, id);
        list.items = list.items.filter((it) => it !== item);
        return { result: item, changed: true };
      });
    },
  };
}

/**
 * Opens the todo store in the file `path` (no IO until a method is called).
 * @param options `maxItems` (default 1,000), `staleMs`, `timeoutMs`, `logger`
 * @example const todos = openTodoStore(todosFilePath("project", { root })); await todos.add("write tests");
 */
export function openTodoStore(path: string, options: TodoStoreOptions = {}): TodoStore {
  return createTodoStore(fileTodoRecords(path, options), options);
}
