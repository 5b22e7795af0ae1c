/**
 * @module agents/cli
 * `toolgate agents list` and `toolgate agents resolve AGENT [--depth N]` as plain functions the CLI wires.
 * `resolve --json` prints DESIGN §4's `{"tools":[...],"warnings":[...]}`.
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../core/index.js";
import { type AgentDefinition, loadAgentDefinitions } from "./definitions.js";
import type { Resolution } from "./resolve.js";

/** What the commands need from the CLI. */
export interface AgentsCliIo {
  root: string;
  stdout(text: string): void;
  stderr(text: string): void;
  json: boolean;
  /**
   * Resolves an agent among every tool of the host (`gate.resolveAgent`); `poolWarnings` are what building
   * the tools reported (already shown on stderr by the host's logger; added to the JSON output).
   */
  resolve(agent: AgentDefinition, depth: number): Promise<Resolution & { poolWarnings: readonly string[] }>;
}

export const agentsUsage = "toolgate agents list | toolgate agents resolve AGENT [--depth N]";

/**
 * Runs `agents list` or `agents resolve`. Returns the exit code (0); throws ConfigError for bad usage or an
 * unknown agent (the CLI exits 2).
 */
export async function runAgentsCommand(argv: readonly string[], io: AgentsCliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return listAgents(rest, io);
  if (sub === "resolve") return resolveAgent(rest, io);
  throw new ConfigError(`usage: ${agentsUsage}`);
}

async function listAgents(argv: readonly string[], io: AgentsCliIo): Promise<number> {
  if (argv.length > 0) throw new ConfigError(`usage: ${agentsUsage}`);
  const { agents, problems, warnings } = await loadAgentDefinitions(io.root);
  for (const p of problems) io.stderr(`toolgate: warning: ${p.file}: skipped: ${p.reason}\n`);
  for (const w of warnings) io.stderr(`toolgate: warning: ${w}\n`);
  if (io.json) {
    const rows = agents.map((a) => ({
      name: a.name,
      description: a.description,
      tools: a.tools,
      max_depth: a.maxDepth,
      file: a.file ?? null,
    }));
    io.stdout(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (agents.length === 0) io.stdout("no agents defined in .toolgate/agents/\n");
  const width = Math.max(0, ...agents.map((a) => a.name.length));
  for (const a of agents) io.stdout(`${a.name.padEnd(width)}  ${a.description}  [${a.tools.join(", ")}]\n`);
  return 0;
}

async function resolveAgent(argv: readonly string[], io: AgentsCliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { depth: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new ConfigError(`usage: ${agentsUsage}`);
  const depth = values.depth === undefined ? 0 : Number(values.depth);
  if (!Number.isInteger(depth) || depth < 0)
    throw new ConfigError(`--depth must be a whole number ≥ 0, not ${JSON.stringify(values.depth)}`);
  const { agents, problems } = await loadAgentDefinitions(io.root);
  const name = positionals[0]!;
  const agent = agents.find((a) => a.name === name);
  if (!agent) {
    const skipped = problems.find((p) => p.file.endsWith(`/${name}.md`));
    throw new ConfigError(
      skipped
        ? `agent ${name} cannot be used: ${skipped.file}: ${skipped.reason}`
        : `no agent named ${JSON.stringify(name)} in .toolgate/agents/`,
    );
  }
  const { tools, warnings, poolWarnings } = await io.resolve(agent, depth);
  if (io.json || values.json) {
    io.stdout(`${JSON.stringify({ tools, warnings: [...poolWarnings, ...warnings] })}\n`);
  } else {
    for (const t of tools) io.stdout(`${t}\n`);
    for (const w of warnings) io.stderr(`toolgate: warning: ${w}\n`);
  }
  return 0;
}
