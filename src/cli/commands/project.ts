/**
 * @module cli/commands/project
 * Adapters for the commands whose work lives in other folders: `memory`, `todos` (state), `agents`
 * (agent definitions and resolution) and `mcp list` (configured MCP servers).
 */
import { runAgentsCommand } from "../../agents/index.js";
import { runMcpListCommand } from "../../mcp/index.js";
import type { CliContext } from "../context.js";
import type { ExitCode } from "../exit-codes.js";
import { runMemoryCommand } from "./memory.js";
import { runTodosCommand } from "./todos.js";

export const memoryUsage = "toolgate memory list|get KEY|set KEY VALUE|delete KEY [--scope project|user]";
export const todosUsage =
  "toolgate todos list|add TEXT|complete ID|remove ID|update ID [--text T] [--status S]";
export const agentsUsage = "toolgate agents list | toolgate agents resolve AGENT [--depth N]";

function stateIo(ctx: CliContext) {
  return { root: ctx.root, stdout: ctx.io.stdout, stderr: ctx.io.stderr, json: ctx.globals.json };
}

export async function runMemory(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runMemoryCommand(argv, stateIo(ctx));
}

export async function runTodos(argv: string[], ctx: CliContext): Promise<ExitCode> {
  return runTodosCommand(argv, stateIo(ctx));
}

export async function runAgents(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const gate = await ctx.gate();
  return (await runAgentsCommand(argv, { ...stateIo(ctx), registry: gate.registry })) as ExitCode;
}

export async function runMcpList(ctx: CliContext): Promise<ExitCode> {
  const gate = await ctx.gate();
  return (await runMcpListCommand({
    ...stateIo(ctx),
    registry: gate.registry,
    trusted: gate.workspaceTrusted,
  })) as ExitCode;
}
