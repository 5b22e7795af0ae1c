/**
 * @module cli/commands/memory
 * `toolgate memory list|get|set|delete`: shows and edits the memory store of the project or the user from
 * the terminal, through the gate's state backend — the same store the memory tool uses.
 */
import {
  createMemoryStore,
  memoryKeyProblem,
  type StateBackend,
  StateError,
  type StateScope,
} from "../../state/index.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.memory;

const OPTIONS = {
  scope: {
    type: "string",
    value: "S",
    description: "project (default: the workspace's .toolgate/state/) or user (shared by every workspace)",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Shows and edits the memory store the memory tool uses (the gate's state backend), for the project or the user.",
  options: OPTIONS,
  examples: ['toolgate memory set build "npm run build"', "toolgate memory list --scope user --json"],
};

/** What a state command needs from the CLI: the gate's state backend, output, and `--json`. */
export interface StateCommandIo {
  /** The gate's state backend (`gate.state`); its warnings go to the gate's logger. */
  state: StateBackend;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Machine-readable output on stdout. */
  json: boolean;
}

/** Prints a store failure; bad input is usage (2), the rest (missing, IO, lock) a failure (1). */
export function reportStateError(error: unknown, io: StateCommandIo): ExitCode {
  if (!(error instanceof StateError)) throw error;
  io.stderr(`toolgate: ${error.message}\n`);
  return error.code === "invalid" ? EXIT.usage : EXIT.toolError;
}

/** One line of a value for listings: newlines shown as ⏎, cut at 60 characters. */
function preview(value: string): string {
  const flat = value.replace(/\r?\n/g, "⏎");
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

/**
 * Runs `toolgate memory ...`. Exit codes: 0 done; 1 not found / store failure; 2 bad usage or bad key.
 * With `json`: `list` prints `[{"key","value","updatedAt"}]`, `get` `{"key","scope","found","value"?}`,
 * `set` `{"key","scope","saved":true}`, `delete` `{"key","scope","deleted"}`.
 * @example await runMemoryCommand(["set", "build", "npm run build"], { root, stdout, stderr, json: false })
 */
export async function runMemoryCommand(argv: string[], io: StateCommandIo): Promise<ExitCode> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`toolgate: ${(error as Error).message}\nusage: ${usage}\n`);
    return EXIT.usage;
  }
  const { sub, args, scope } = parsed;
  const arity: Record<string, number> = { list: 0, get: 1, set: 2, delete: 1 };
  const expected = Object.hasOwn(arity, sub) ? arity[sub] : undefined;
  if (expected === undefined || args.length !== expected) {
    io.stderr(`usage: ${usage}\n`);
    return EXIT.usage;
  }
  const key = args[0] as string;
  if (sub !== "list") {
    const problem = memoryKeyProblem(key);
    if (problem) {
      io.stderr(`toolgate: ${problem}\n`);
      return EXIT.usage;
    }
  }
  const store = createMemoryStore(io.state.memory(scope));
  const where = `${scope} memory`;
  const out = (value: unknown, text: string) => io.stdout(io.json ? `${JSON.stringify(value)}\n` : text);
  try {
    switch (sub) {
      case "list": {
        const entries = await store.list();
        const width = Math.max(0, ...entries.map((e) => e.key.length));
        const lines = entries.map((e) => `${e.key.padEnd(width)}  ${preview(e.value)}\n`).join("");
        out(entries, entries.length === 0 ? `no memories in ${where}\n` : lines);
        return EXIT.ok;
      }
      case "get": {
        const value = await store.get(key);
        if (value === undefined) {
          if (io.json) out({ key, scope, found: false }, "");
          io.stderr(`toolgate: not found: no value is stored under "${key}" in ${where}\n`);
          return EXIT.toolError;
        }
        out({ key, scope, found: true, value }, value.endsWith("\n") ? value : `${value}\n`);
        return EXIT.ok;
      }
      case "set":
        await store.set(key, args[1] as string);
        out({ key, scope, saved: true }, `saved "${key}" in ${where}\n`);
        return EXIT.ok;
      default: {
        const deleted = await store.delete(key);
        if (io.json) out({ key, scope, deleted }, "");
        if (!deleted) {
          io.stderr(`toolgate: not found: no value is stored under "${key}" in ${where}\n`);
          return EXIT.toolError;
        }
        if (!io.json) io.stdout(`deleted "${key}" from ${where}\n`);
        return EXIT.ok;
      }
    }
  } catch (error) {
    return reportStateError(error, io);
  }
}

function parse(argv: string[]): { sub: string; args: string[]; scope: StateScope } {
  const { values, positionals } = parseOptions("toolgate memory", argv, OPTIONS);
  const scope = values.scope ?? "project";
  if (scope !== "project" && scope !== "user") {
    throw new Error(`--scope must be "project" or "user", not ${JSON.stringify(scope)}`);
  }
  const [sub = "", ...args] = positionals;
  return { sub, args, scope };
}
