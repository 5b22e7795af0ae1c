/**
 * @module cli/commands/todos
 * `toolgate todos list|add|complete|remove|update`: shows and edits the project's todo list from the
 * terminal, through the gate's state backend — the same list the write_todos tool keeps.
 */
import { createTodoStore, TODO_STATUSES, type TodoItem, type TodoStatus } from "../../state/index.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";
import { reportStateError, type StateCommandIo } from "./memory.js";

const usage = USAGE.todos;

const OPTIONS = {
  text: { type: "string", value: "T", description: "update: the item's new text" },
  status: { type: "string", value: "S", description: "add, update: pending, in_progress or completed" },
} as const;

export const help: CommandHelp = {
  summary: "Shows and edits the project's todo list, the one the write_todos tool keeps.",
  options: OPTIONS,
  examples: [
    "toolgate todos add write the tests",
    "toolgate todos update 3 --status in_progress",
    "toolgate todos list --json",
  ],
};

const MARK: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/** `[x] 3  text` — one line per item. */
function line(item: TodoItem): string {
  return `${MARK[item.status]} ${item.id}  ${item.text}\n`;
}

function statusOf(value: string | undefined): TodoStatus | undefined {
  if (value === undefined) return undefined;
  if ((TODO_STATUSES as readonly string[]).includes(value)) return value as TodoStatus;
  throw new Error(`--status must be one of ${TODO_STATUSES.join(", ")}, not ${JSON.stringify(value)}`);
}

/**
 * Runs `toolgate todos ...`. Exit codes: 0 done; 1 unknown id / store failure; 2 bad usage or bad text.
 * With `json`: `list` prints the items array; `add` and `update` `{"item","demoted"?}`; `complete` and
 * `remove` the item. `add` joins its words (`todos add write the tests`).
 * @example await runTodosCommand(["complete", "3"], { root, stdout, stderr, json: true })
 */
export async function runTodosCommand(argv: string[], io: StateCommandIo): Promise<ExitCode> {
  let sub: string;
  let args: string[];
  let text: string | undefined;
  let status: TodoStatus | undefined;
  try {
    const { values, positionals } = parseOptions("toolgate todos", argv, OPTIONS);
    [sub = "", ...args] = positionals;
    text = values.text;
    status = statusOf(values.status);
  } catch (error) {
    io.stderr(`toolgate: ${(error as Error).message}\nusage: ${usage}\n`);
    return EXIT.usage;
  }
  const wellFormed =
    (sub === "list" && args.length === 0 && !text && !status) ||
    (sub === "add" && args.length > 0 && text === undefined) ||
    ((sub === "complete" || sub === "remove") && args.length === 1 && !text && !status) ||
    (sub === "update" && args.length === 1 && (text !== undefined || status !== undefined));
  if (!wellFormed) {
    io.stderr(`usage: ${usage}\n`);
    return EXIT.usage;
  }
  const store = createTodoStore(io.state.todos());
  const out = (value: unknown, plain: string) => io.stdout(io.json ? `${JSON.stringify(value)}\n` : plain);
  const id = args[0] as string;
  try {
    switch (sub) {
      case "list": {
        const items = await store.list();
        out(items, items.length === 0 ? "no todos\n" : items.map(line).join(""));
        return EXIT.ok;
      }
      case "add": {
        const change = await store.add(args.join(" "), status);
        out(change, `added todo ${change.item.id}: ${change.item.text}\n${demotedLine(change.demoted)}`);
        return EXIT.ok;
      }
      case "update": {
        const patch: { text?: string; status?: TodoStatus } = {};
        if (text !== undefined) patch.text = text;
        if (status !== undefined) patch.status = status;
        const change = await store.update(id, patch);
        out(change, `${line(change.item)}${demotedLine(change.demoted)}`);
        return EXIT.ok;
      }
      case "complete": {
        const item = await store.complete(id);
        out(item, line(item));
        return EXIT.ok;
      }
      default: {
        const item = await store.remove(id);
        out(item, `removed todo ${item.id}: ${item.text}\n`);
        return EXIT.ok;
      }
    }
  } catch (error) {
    return reportStateError(error, io);
  }
}

function demotedLine(demoted: TodoItem | undefined): string {
  return demoted ? `todo ${demoted.id} was in progress and is now pending\n` : "";
}
