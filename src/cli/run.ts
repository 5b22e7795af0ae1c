/**
 * @module cli/run
 * The command dispatcher: global flags → command → exit code. Errors are one clear line on stderr (a stack
 * trace only with `--debug`); every failure maps to an exit code in one place.
 */
import { readFile } from "node:fs/promises";
import type { CliContext } from "./context.js";
import { EXIT, type ExitCode, UsageError } from "./exit-codes.js";
import { GLOBAL_OPTIONS, type GlobalOptions, splitGlobals } from "./globals.js";
import type { CliIo } from "./io.js";
import { type CommandHelp, optionLines, renderCommandHelp } from "./options.js";

interface Command {
  usage: string;
  /** What `toolgate COMMAND --help` prints: summary, the command's flags, examples. */
  help: CommandHelp;
  run(argv: string[], ctx: CliContext): Promise<ExitCode>;
}

/** One command: its `--help` line (static, so `--help` loads no command) and its module, loaded on use. */
export interface CommandEntry {
  usage: string;
  load(): Promise<Command>;
}

/**
 * The commands, in `--help` order. A command's module loads only when it runs: `toolgate call` does not
 * pay for the model clients or the MCP SDK. `usage` must equal the module's own usage string (run.test.ts
 * checks): to add a command, add a row here.
 */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  chat: {
    usage:
      "toolgate chat [--resume [SESSION]] [--agent NAME] [--provider ollama|openai] [--model M] [--base-url URL] [--temperature T] [--max-tokens N] [--think true|false|low|medium|high] [--context-window N] [--timeout-ms N] [--max-steps N] [--no-thinking] [--routing|--no-routing] [--yes]",
    load: async () => {
      const m = await import("./commands/chat.js");
      return { usage: m.usage, help: m.help, run: m.runChat };
    },
  },
  run: {
    usage:
      'toolgate run "TASK" [--yes] [--agent NAME] [--provider ollama|openai] [--model M] [--base-url URL] [--temperature T] [--max-tokens N] [--think true|false|low|medium|high] [--context-window N] [--timeout-ms N] [--max-steps N] [--no-thinking] [--routing|--no-routing] [--quiet]',
    load: async () => {
      const m = await import("./commands/run.js");
      return { usage: m.usage, help: m.help, run: m.runRun };
    },
  },
  replay: {
    usage: "toolgate replay [FILE|SESSION_ID]",
    load: async () => {
      const m = await import("./commands/replay.js");
      return { usage: m.usage, help: m.help, run: m.runReplay };
    },
  },
  tools: {
    usage: "toolgate tools",
    load: async () => {
      const m = await import("./commands/tools.js");
      return { usage: m.usage, help: m.help, run: m.runTools };
    },
  },
  schema: {
    usage: "toolgate schema --provider openai|openai-responses|anthropic|gemini|ollama [--report]",
    load: async () => {
      const m = await import("./commands/schema.js");
      return { usage: m.usage, help: m.help, run: m.runSchema };
    },
  },
  call: {
    usage: "toolgate call TOOL [ARGS_JSON|-] [--yes] | toolgate call --batch FILE|- [--yes]",
    load: async () => {
      const m = await import("./commands/call.js");
      return { usage: m.usage, help: m.help, run: m.runCall };
    },
  },
  policy: {
    usage: "toolgate policy check TOOL [ARGS_JSON] [--explain] | toolgate policy validate FILE [--strict]",
    load: async () => {
      const m = await import("./commands/policy.js");
      return { usage: m.usage, help: m.help, run: m.runPolicy };
    },
  },
  plan: {
    usage: "toolgate plan --query Q [--response-file F|-] [--routing JSON] [--tools A,B] [--round N]",
    load: async () => {
      const m = await import("./commands/plan.js");
      return { usage: m.usage, help: m.help, run: m.runPlan };
    },
  },
  agents: {
    usage: "toolgate agents list | toolgate agents resolve AGENT [--depth N]",
    load: async () => {
      const m = await import("./commands/agents.js");
      return { usage: m.agentsUsage, help: m.agentsHelp, run: (argv, ctx) => m.runAgents(argv, ctx) };
    },
  },
  mcp: {
    usage:
      "toolgate mcp [--pool] [--http HOST:PORT [--allow-remote] [--allow-origin URL]... [--session-idle-ms N] [--max-sessions N] [--max-sessions-per-token N]] | toolgate mcp list",
    load: async () => {
      const m = await import("./commands/mcp.js");
      return { usage: m.usage, help: m.help, run: m.runMcp };
    },
  },
  trust: {
    usage: "toolgate trust [DIR] | toolgate trust --list | toolgate trust --remove DIR",
    load: async () => {
      const m = await import("./commands/trust.js");
      return { usage: m.usage, help: m.help, run: m.runTrust };
    },
  },
  memory: {
    usage: "toolgate memory list|get KEY|set KEY VALUE|delete KEY [--scope project|user]",
    load: async () => {
      const m = await import("./commands/project.js");
      return { usage: m.memoryUsage, help: m.memoryHelp, run: m.runMemory };
    },
  },
  todos: {
    usage: "toolgate todos list|add TEXT|complete ID|remove ID|update ID [--text T] [--status S]",
    load: async () => {
      const m = await import("./commands/project.js");
      return { usage: m.todosUsage, help: m.todosHelp, run: m.runTodos };
    },
  },
  init: {
    usage: "toolgate init [--force]",
    load: async () => {
      const m = await import("./commands/init.js");
      return { usage: m.usage, help: m.help, run: m.runInit };
    },
  },
  models: {
    usage:
      "toolgate models pull [NAME|URL] [--sha256 HEX] [--yes] | toolgate models list | toolgate models rm NAME",
    load: async () => {
      const m = await import("./commands/models.js");
      return { usage: m.usage, help: m.help, run: m.runModels };
    },
  },
  doctor: {
    usage: "toolgate doctor",
    load: async () => {
      const m = await import("./commands/doctor.js");
      return { usage: m.usage, help: m.help, run: m.runDoctor };
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
      io.stdout(`${await packageVersion()}\n`);
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
      io.stdout(renderCommandHelp(command.usage, command.help));
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

/**
 * The version in the package's own package.json (two folders up from `src/cli/`, `dist/cli/` and the bundle's
 * `dist/bin/`).
 */
async function packageVersion(): Promise<string> {
  const text = await readFile(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
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
