/**
 * @module cli/run
 * The command dispatcher: global flags → command → exit code. Errors are one clear line on stderr (a stack
 * trace only with `--debug`); every failure maps to an exit code in one place.
 */
import { ConfigError } from "../core/index.js";
import { type CliContext, createContext } from "./context.js";
import { EXIT, type ExitCode, UsageError } from "./exit-codes.js";
import { type GlobalOptions, splitGlobals } from "./globals.js";
import type { CliIo } from "./io.js";

interface Command {
  usage: string;
  run(argv: string[], ctx: CliContext): Promise<ExitCode>;
}

/**
 * The commands, loaded on use: `toolgate call` does not pay for the model clients or the MCP SDK.
 * The order is the order of `--help`.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  chat: async () => {
    const m = await import("./commands/chat.js");
    return { usage: m.usage, run: m.runChat };
  },
  run: async () => {
    const m = await import("./commands/run.js");
    return { usage: m.usage, run: m.runRun };
  },
  replay: async () => {
    const m = await import("./commands/replay.js");
    return { usage: m.usage, run: m.runReplay };
  },
  tools: async () => {
    const m = await import("./commands/tools.js");
    return { usage: m.usage, run: m.runTools };
  },
  schema: async () => {
    const m = await import("./commands/schema.js");
    return { usage: m.usage, run: m.runSchema };
  },
  call: async () => {
    const m = await import("./commands/call.js");
    return { usage: m.usage, run: m.runCall };
  },
  policy: async () => {
    const m = await import("./commands/policy.js");
    return { usage: m.usage, run: m.runPolicy };
  },
  plan: async () => {
    const m = await import("./commands/plan.js");
    return { usage: m.usage, run: m.runPlan };
  },
  agents: async () => {
    const m = await import("./commands/project.js");
    return { usage: m.agentsUsage, run: m.runAgents };
  },
  mcp: async () => {
    const m = await import("./commands/mcp.js");
    return { usage: m.usage, run: m.runMcp };
  },
  trust: async () => {
    const m = await import("./commands/trust.js");
    return { usage: m.usage, run: m.runTrust };
  },
  memory: async () => {
    const m = await import("./commands/project.js");
    return { usage: m.memoryUsage, run: m.runMemory };
  },
  todos: async () => {
    const m = await import("./commands/project.js");
    return { usage: m.todosUsage, run: m.runTodos };
  },
};

const GLOBAL_HELP = `Global flags: --workspace DIR (the allowed root; default: the current directory), --policy FILE,
  --config FILE, --json (machine-readable output), --debug (stack traces on errors)
Exit codes: 0 success, 1 the tool reported an error, 2 bad usage or configuration, 3 denied by policy`;

export async function helpText(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const lines = commands.map((c) => `  ${c.usage}`);
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
      io.stdout(await helpText());
      return name === undefined && !globals.help ? EXIT.usage : EXIT.ok;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load)
      throw new UsageError(
        `unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(", ")}`,
      );
    const command = await load();
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
