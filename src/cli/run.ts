/**
 * @module cli/run
 * The command dispatcher: global flags → command → exit code. Errors are one clear line on stderr (a stack
 * trace only with `--debug`); every failure maps to an exit code in one place.
 */
import type { CliContext } from "./context.js";
import { EXIT, type ExitCode, UsageError } from "./exit-codes.js";
import { GLOBAL_OPTIONS, type GlobalOptions, splitGlobals } from "./globals.js";
import type { CliIo } from "./io.js";
import { type CommandHelp, optionLines, renderCommandHelp } from "./options.js";
import { USAGE } from "./usage.js";

interface Command {
  /** What `toolgate COMMAND --help` prints: summary, the command's flags, examples. */
  help: CommandHelp;
  run(argv: string[], ctx: CliContext): Promise<ExitCode>;
}

/** One command: its usage line (`cli/usage.ts`, so `--help` loads no command) and its module, loaded on use. */
export interface CommandEntry {
  usage: string;
  load(): Promise<Command>;
}

/**
 * The commands, in `--help` order. A command's module loads only when it runs: `toolgate call` does not
 * pay for the model clients or the MCP SDK. To add a command, add a row here and its usage line to
 * `cli/usage.ts`.
 */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  chat: {
    usage: USAGE.chat,
    load: async () => {
      const m = await import("./commands/chat.js");
      return { help: m.help, run: m.runChat };
    },
  },
  run: {
    usage: USAGE.run,
    load: async () => {
      const m = await import("./commands/run.js");
      return { help: m.help, run: m.runRun };
    },
  },
  replay: {
    usage: USAGE.replay,
    load: async () => {
      const m = await import("./commands/replay.js");
      return { help: m.help, run: m.runReplay };
    },
  },
  tools: {
    usage: USAGE.tools,
    load: async () => {
      const m = await import("./commands/tools.js");
      return { help: m.help, run: m.runTools };
    },
  },
  schema: {
    usage: USAGE.schema,
    load: async () => {
      const m = await import("./commands/schema.js");
      return { help: m.help, run: m.runSchema };
    },
  },
  call: {
    usage: USAGE.call,
    load: async () => {
      const m = await import("./commands/call.js");
      return { help: m.help, run: m.runCall };
    },
  },
  policy: {
    usage: USAGE.policy,
    load: async () => {
      const m = await import("./commands/policy.js");
      return { help: m.help, run: m.runPolicy };
    },
  },
  plan: {
    usage: USAGE.plan,
    load: async () => {
      const m = await import("./commands/plan.js");
      return { help: m.help, run: m.runPlan };
    },
  },
  agents: {
    usage: USAGE.agents,
    load: async () => {
      const m = await import("./commands/agents.js");
      return { help: m.agentsHelp, run: (argv, ctx) => m.runAgents(argv, ctx) };
    },
  },
  mcp: {
    usage: USAGE.mcp,
    load: async () => {
      const m = await import("./commands/mcp.js");
      return { help: m.help, run: m.runMcp };
    },
  },
  hooks: {
    usage: USAGE.hooks,
    load: async () => {
      const m = await import("./commands/hooks.js");
      return { help: m.help, run: m.runHooks };
    },
  },
  trust: {
    usage: USAGE.trust,
    load: async () => {
      const m = await import("./commands/trust.js");
      return { help: m.help, run: m.runTrust };
    },
  },
  memory: {
    usage: USAGE.memory,
    load: async () => {
      const m = await import("./commands/project.js");
      return { help: m.memoryHelp, run: m.runMemory };
    },
  },
  todos: {
    usage: USAGE.todos,
    load: async () => {
      const m = await import("./commands/project.js");
      return { help: m.todosHelp, run: m.runTodos };
    },
  },
  approvals: {
    usage: USAGE.approvals,
    load: async () => {
      const m = await import("./commands/approvals.js");
      return { help: m.help, run: m.runApprovals };
    },
  },
  audit: {
    usage: USAGE.audit,
    load: async () => {
      const m = await import("./commands/audit.js");
      return { help: m.help, run: m.runAudit };
    },
  },
  init: {
    usage: USAGE.init,
    load: async () => {
      const m = await import("./commands/init.js");
      return { help: m.help, run: m.runInit };
    },
  },
  models: {
    usage: USAGE.models,
    load: async () => {
      const m = await import("./commands/models.js");
      return { help: m.help, run: m.runModels };
    },
  },
  doctor: {
    usage: USAGE.doctor,
    load: async () => {
      const m = await import("./commands/doctor.js");
      return { help: m.help, run: m.runDoctor };
    },
  },
  console: {
    usage: USAGE.console,
    load: async () => {
      const m = await import("./commands/console.js");
      return { help: m.help, run: m.runConsole };
    },
  },
};

const EXIT_HELP =
  "Exit codes: 0 success, 1 the tool reported an error, 2 bad usage or configuration, 3 denied by policy";

/** The `--help` text, from the static tables (no command module is loaded). */
export function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}`);
  const globals = optionLines(GLOBAL_OPTIONS).join("\n");
  return `toolgate — the tool layer for LLM agents\n\nUsage:\n${lines.join("\n")}\n\nGlobal flags (anywhere on the line):\n${globals}\n\n\`toolgate COMMAND --help\` shows a command's flags and examples.\n${EXIT_HELP}\n`;
}

/** Runs the command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let globals: GlobalOptions = { json: false, debug: false, help: false, version: false };
  let ctx: (CliContext & { close(): Promise<void> }) | undefined;
  try {
    const split = splitGlobals(argv);
    globals = split.globals;
    const [name, ...rest] = split.rest;
    if (globals.version && name === undefined) {
      // Loaded here, not at the top: `--help` loads nothing beyond the tables.
      const { TOOLGATE_VERSION } = await import("../utils/index.js");
      io.stdout(`${TOOLGATE_VERSION}\n`);
      return EXIT.ok;
    }
    // `toolgate help COMMAND` is `toolgate COMMAND --help`.
    const topic = name === "help" ? rest[0] : globals.help ? name : undefined;
    if (topic === undefined && (globals.help || name === "help" || name === undefined)) {
      io.stdout(helpText());
      return name === undefined && !globals.help ? EXIT.usage : EXIT.ok;
    }
    const entry = lookup(topic ?? name!);
    const command = await entry.load();
    if (topic !== undefined) {
      io.stdout(renderCommandHelp(entry.usage, command.help));
      return EXIT.ok;
    }
    if (globals.version) throw new UsageError(`--version takes no command (toolgate --version)`);
    const { createContext } = await import("./context.js");
    ctx = createContext(io, globals);
    return await command.run(rest, ctx);
  } catch (error) {
    return await reportError(error, io, globals);
  } finally {
    await ctx?.close().catch(() => undefined);
  }
}

function lookup(name: string): CommandEntry {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry)
    throw new UsageError(
      `unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(", ")}`,
    );
  return entry;
}

async function reportError(error: unknown, io: CliIo, globals: GlobalOptions): Promise<ExitCode> {
  // The core loads here only when no command got as far as loading it.
  const { ConfigError } = await import("../core/index.js");
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
