/**
 * @module cli/run
 * The command dispatcher: global flags → command → exit code. Errors are one clear line on stderr (a stack
 * trace only with `--debug`); every failure maps to an exit code in one place.
 */
import { ConfigError } from "../core/errors.js";
import * as call from "./commands/call.js";
import * as chat from "./commands/chat.js";
import * as mcp from "./commands/mcp.js";
import * as plan from "./commands/plan.js";
import * as policy from "./commands/policy.js";
import * as project from "./commands/project.js";
import * as replay from "./commands/replay.js";
import * as runTask from "./commands/run.js";
import * as schema from "./commands/schema.js";
import * as tools from "./commands/tools.js";
import { type CliContext, createContext } from "./context.js";
import { EXIT, type ExitCode, UsageError } from "./exit-codes.js";
import { type GlobalOptions, splitGlobals } from "./globals.js";
import type { CliIo } from "./io.js";

interface Command {
  usage: string;
  run(argv: string[], ctx: CliContext): Promise<ExitCode>;
}

const COMMANDS: Record<string, Command> = {
  chat: { usage: chat.usage, run: chat.runChat },
  run: { usage: runTask.usage, run: runTask.runRun },
  replay: { usage: replay.usage, run: replay.runReplay },
  tools: { usage: tools.usage, run: tools.runTools },
  schema: { usage: schema.usage, run: schema.runSchema },
  call: { usage: call.usage, run: call.runCall },
  policy: { usage: policy.usage, run: policy.runPolicy },
  plan: { usage: plan.usage, run: plan.runPlan },
  agents: { usage: project.agentsUsage, run: project.runAgents },
  mcp: { usage: mcp.usage, run: mcp.runMcp },
  memory: { usage: project.memoryUsage, run: project.runMemory },
  todos: { usage: project.todosUsage, run: project.runTodos },
};

const GLOBAL_HELP = `Global flags: --workspace DIR (the allowed root; default: the current directory), --policy FILE,
  --config FILE, --json (machine-readable output), --debug (stack traces on errors)
Exit codes: 0 success, 1 the tool reported an error, 2 bad usage or configuration, 3 denied by policy`;

export function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}`);
  return `toolgate — the tool layer for LLM agents\n\nUsage:\n${lines.join("\n")}\n\n${GLOBAL_HELP}\n`;
}

/** Runs the command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let globals: GlobalOptions = { json: false, debug: false, help: false };
  let ctx: ReturnType<typeof createContext> | undefined;
  try {
    const split = splitGlobals(argv);
    globals = split.globals;
    const [name, ...rest] = split.rest;
    if (globals.help || name === "help" || name === undefined) {
      io.stdout(helpText());
      return name === undefined && !globals.help ? EXIT.usage : EXIT.ok;
    }
    const command = COMMANDS[name];
    if (!command)
      throw new UsageError(
        `unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(", ")}`,
      );
    ctx = createContext(io, globals);
    return await command.run(rest, ctx);
  } catch (error) {
    return reportError(error, io, globals);
  } finally {
    await ctx?.close().catch(() => undefined);
  }
}

function reportError(error: unknown, io: CliIo, globals: GlobalOptions): ExitCode {
  const known = error instanceof UsageError || error instanceof ConfigError || isParseArgsError(error);
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`toolgate: ${known ? "" : "internal error: "}${message}\n`);
  if (globals.debug && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return known ? EXIT.usage : EXIT.toolError;
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}
