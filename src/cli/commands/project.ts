/**
 * @module cli/commands/project
 * Adapters for the commands on the project's state: `memory` and `todos`.
 */
import type { CliContext } from "../context.js";
import type { ExitCode } from "../exit-codes.js";
import { runMemoryCommand } from "./memory.js";
import { runTodosCommand } from "./todos.js";

export { help as memoryHelp } from "./memory.js";
export { help as todosHelp } from "./todos.js";

function stateIo(ctx: CliContext) {
  return { root: ctx.root, stdout: ctx.io.stdout, stderr: ctx.io.stderr, json: ctx.globals.json };
}

export async function runMemory(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runMemoryCommand(argv, stateIo(ctx));
}

export async function runTodos(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runTodosCommand(argv, stateIo(ctx));
}
