/**
 * @module cli/commands/agents
 * `toolgate agents list` and `toolgate agents resolve AGENT [--depth N]`: the project's agent definitions,
 * and the tools one of them gets in the project's pool (built-ins plus `.mcp.json`'s servers). `resolve
 * --json` prints DESIGN §4's `{"tools":[...],"warnings":[...]}`.
 */
import { type AgentDefinition, loadAgentDefinitions } from "../../agents/index.js";
import type { Toolgate } from "../../toolgate.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const agentsUsage = USAGE.agents;

const RESOLVE_OPTIONS = {
  depth: {
    type: "string",
    value: "N",
    description: "resolve: the agent runs as a sub-agent N levels deep (0, the default, is the top)",
  },
} as const;

export const agentsHelp: CommandHelp = {
  summary:
    "list: the agents defined in .toolgate/agents/*.md. resolve: the tools one agent gets in the project's pool (built-ins and .mcp.json's servers), with the sub-agent restrictions at that depth.",
  options: RESOLVE_OPTIONS,
  examples: ["toolgate agents list --json", "toolgate agents resolve reviewer --depth 1"],
};

/** Runs `agents list` or `agents resolve`; `gate` holds the tools agents resolve among (default: the context's). */
export async function runAgents(argv: string[], ctx: CliContext, gate?: Toolgate): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  if (sub === "list") return listAgents(rest, ctx);
  if (sub === "resolve") return resolveAgent(rest, ctx, gate ?? (await ctx.gate()));
  throw new UsageError(`usage: ${agentsUsage}`);
}

async function listAgents(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseOptions("toolgate agents list", argv, {});
  if (positionals.length > 0) throw new UsageError(`usage: ${agentsUsage}`);
  const { agents, problems, warnings } = await loadAgentDefinitions(ctx.root);
  const { io } = ctx;
  for (const p of problems) io.stderr(`toolgate: warning: ${p.file}: skipped: ${p.reason}\n`);
  for (const w of warnings) io.stderr(`toolgate: warning: ${w}\n`);
  if (ctx.globals.json) {
    io.stdout(`${JSON.stringify(agents.map(agentRow))}\n`);
    return EXIT.ok;
  }
  if (agents.length === 0) io.stdout("no agents defined in .toolgate/agents/\n");
  const width = Math.max(0, ...agents.map((a) => a.name.length));
  for (const a of agents) io.stdout(`${a.name.padEnd(width)}  ${a.description}  [${a.tools.join(", ")}]\n`);
  return EXIT.ok;
}

function agentRow(a: AgentDefinition) {
  return {
    name: a.name,
    description: a.description,
    tools: a.tools,
    max_depth: a.maxDepth,
    file: a.file ?? null,
  };
}

async function resolveAgent(argv: string[], ctx: CliContext, gate: Toolgate): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate agents resolve", argv, RESOLVE_OPTIONS);
  if (positionals.length !== 1) throw new UsageError(`usage: ${agentsUsage}`);
  const depth = values.depth === undefined ? 0 : Number(values.depth);
  if (!Number.isInteger(depth) || depth < 0)
    throw new UsageError(`--depth must be a whole number ≥ 0, not ${JSON.stringify(values.depth)}`);
  const { agents, problems } = await loadAgentDefinitions(ctx.root);
  const name = positionals[0]!;
  const agent = agents.find((a) => a.name === name);
  if (!agent) {
    const skipped = problems.find((p) => p.file.endsWith(`/${name}.md`));
    throw new UsageError(
      skipped
        ? `agent ${name} cannot be used: ${skipped.file}: ${skipped.reason}`
        : `no agent named ${JSON.stringify(name)} in .toolgate/agents/`,
    );
  }
  // Every tool of the gate, the project's MCP servers listed; what building them reported comes first.
  const { warnings: poolWarnings } = await gate.tools();
  const { tools, warnings } = await gate.resolveAgent(agent, depth);
  if (ctx.globals.json) {
    ctx.io.stdout(`${JSON.stringify({ tools, warnings: [...poolWarnings, ...warnings] })}\n`);
  } else {
    for (const t of tools) ctx.io.stdout(`${t}\n`);
    for (const w of warnings) ctx.io.stderr(`toolgate: warning: ${w}\n`);
  }
  return EXIT.ok;
}
