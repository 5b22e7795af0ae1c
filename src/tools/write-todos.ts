/**
 * @module tools/write-todos
 * The `write_todos` tool: the model's todo list for the project, in the gate's state backend (by default
 * `.toolgate/state/todos.json`) — add, complete, remove, update text or status, list. At most one item is in
 * progress at a time.
 */

import type { Tool } from "../core/index.js";
import { defineTool, okResult } from "../core/index.js";
import {
  createTodoStore,
  type StateBackend,
  TODO_STATUSES,
  type TodoItem,
  type TodoRules,
  type TodoStatus,
  todoTextProblem,
} from "../state/index.js";
import { failFromState } from "./state-failure.js";

/** What the write_todos tool is built from. */
export interface WriteTodosDeps {
  /** Where the list is kept: the gate's state backend (`gate.state`). */
  state: StateBackend;
  /** The list's rules: `maxItems` (default 1,000). */
  rules?: TodoRules;
}

/** The write_todos tool's parameters (a type alias, so a `Tool<WriteTodosParams>` registers as a `Tool`). */
export type WriteTodosParams = {
  action: "add" | "complete" | "remove" | "update" | "list";
  text?: string;
  id?: string;
  status?: TodoStatus;
};

const MARK: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/** One line per item: `[x] 3: text (completed)`. */
export function formatTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return "The todo list is empty.";
  const lines = items.map((it) => `${MARK[it.status]} ${it.id}: ${it.text} (${it.status})`);
  return `Todos:\n${lines.join("\n")}`;
}

/**
 * Creates the `write_todos` tool.
 *
 * Setting an item `in_progress` (by `update` or `add` with a status) moves the item that was in progress
 * back to `pending` and says so in the result, so at most one item is ever in progress. Every change
 * answers with the whole list. Kind `other`, risk `low`: it writes only toolgate's own state.
 * @example registry.register(createWriteTodosTool({ state: createFileStateBackend({ root: "/ws" }) }))
 */
export function createWriteTodosTool(deps: WriteTodosDeps): Tool<WriteTodosParams> {
  const store = createTodoStore(deps.state.todos(), deps.rules);

  return defineTool<WriteTodosParams>({
    name: "write_todos",
    displayName: "Write todos",
    description:
      "Keeps the todo list of this project across conversations. Actions: `add` a new item with `text` " +
      "(and optionally `status`), answering with its id; `complete` the item `id`; `remove` the item `id`; " +
      "`update` the item `id` with a new `text` and/or `status`; `list` all items with their status. " +
      "Statuses: pending, in_progress, completed. Only one item can be in progress: setting another one in " +
      "progress moves the previous one back to pending.",
    parameters: {
      type: "object",
      properties: {
        action: {
          type: "string",
          enum: ["add", "complete", "remove", "update", "list"],
          description: "What to do.",
        },
        text: { type: "string", description: "The item's text (for add and update)." },
        id: {
          type: "string",
          description: 'The item\'s id as shown by list, e.g. "3" (for complete, remove, update).',
        },
        status: { type: "string", enum: [...TODO_STATUSES], description: "New status (for add and update)." },
      },
      required: ["action"],
      additionalProperties: false,
    },
    kind: "other",
    risk: "low",
    validate({ action, text, id, status }) {
      if (action !== "add" && action !== "list" && id === undefined) {
        return `"id" is required for action "${action}"`;
      }
      if (action === "add")
        return text === undefined ? `"text" is required for action "add"` : todoTextProblem(text);
      if (action === "update") {
        if (text === undefined && status === undefined) return `action "update" needs "text" or "status"`;
        if (text !== undefined) return todoTextProblem(text);
      }
      return undefined;
    },
    describe: ({ action, id, text }) =>
      action === "add"
        ? `write_todos add ${JSON.stringify(text)}`
        : `write_todos ${action}${id ? ` ${id}` : ""}`,
    locations: () => [store.path],
    async run(params) {
      try {
        const id = params.id as string;
        let head: string;
        let changed: TodoItem | undefined;
        let demoted: TodoItem | undefined;
        switch (params.action) {
          case "add": {
            const change = await store.add(params.text as string, params.status);
            ({ item: changed, demoted } = change);
            head = `Added todo ${changed.id}: ${changed.text}`;
            break;
          }
          case "complete":
            changed = await store.complete(id);
            head = `Completed todo ${id}: ${changed.text}`;
            break;
          case "remove":
            changed = await store.remove(id);
            head = `Removed todo ${id}: ${changed.text}`;
            break;
          case "update": {
            const patch: { text?: string; status?: TodoStatus } = {};
            if (params.text !== undefined) patch.text = params.text;
            if (params.status !== undefined) patch.status = params.status;
            ({ item: changed, demoted } = await store.update(id, patch));
            head = `Updated todo ${id}: ${changed.text} (${changed.status})`;
            break;
          }
          default:
            head = "";
        }
        if (demoted) head += `\nTodo ${demoted.id} was in progress and is now pending.`;
        const items = await store.list();
        const body = formatTodos(items);
        const text = head ? `${head}\n\n${body}` : body;
        const data = {
          action: params.action,
          items,
          ...(changed ? { item: changed } : {}),
          ...(demoted ? { demoted } : {}),
        };
        return okResult(text, undefined, data);
      } catch (error) {
        failFromState(error);
      }
    },
  });
}
