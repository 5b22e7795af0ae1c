/**
 * @module cli/commands/project
 * Adapters for the commands on the project's state: `memory` and `todos`, on the gate's state backend.
 */
import type { CliContext } from "../context.js";
import type { ExitCode } from "../exit-codes.js";
import { runMemoryCommand, type StateCommandIo } from "./memory.js";
import { runTodosCommand } from "./todos.js";

export { help as memoryHelp } from "./memory.js";
export { help as todosHelp } from "./todos.js";

/** The commands' IO: the gate's state backend (never a file opened here), the output, `--json`. */
async function stateIo(ctx: CliContext): Promise<StateCommandIo> {
  const { state } = await ctx.gate();
  return { state, stdout: ctx.io.stdout, stderr: ctx.io.stderr, json: ctx.globals.json };
}

export async function runMemory(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runMemoryCommand(argv, await stateIo(ctx));
}

export async function runTodos(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runTodosCommand(argv, await stateIo(ctx));
}
