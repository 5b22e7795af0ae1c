/**
 * @module loop/host
 * Brings a project's tool pool into a gate for a session: the coordination tools (`spawn_agents` backed by
 * this loop, `list_available_agents`) and the tools of the project's MCP servers are registered in the gate,
 * so every call — a sub-agent's included — goes through the gate's one pipeline and policy. Resolves a named
 * agent's scope in that pool.
 */
import {
  type AgentDefinition,
  type AgentRunner,
  loadAgentDefinitions,
  type Resolution,
  ToolPools,
} from "../agents/index.js";
import type { Logger, Tool } from "../core/index.js";
import { ConfigError, ToolRegistry } from "../core/index.js";

/** The part of a gate a host needs: its registry and policy-checked registration. */
export interface HostGate {
  readonly registry: ToolRegistry;
  register(tool: Tool): void;
  /** Whether the workspace's `.mcp.json` may start servers (default: the user's trusted folders). */
  readonly workspaceTrusted?: boolean;
}

export interface SessionHost {
  pools: ToolPools;
  /** Every tool name in the pool (= the gate's tools after attaching), sorted. */
  names: readonly string[];
  /** Resolves an agent by name at `depth` (0: the top-level agent) with its definition. */
  resolveAgent(name: string, depth?: number): Promise<Resolution & { agent: AgentDefinition }>;
  close(): Promise<void>;
}

/**
 * Builds the project's pool over a copy of the gate's tools and registers what the pool adds in the gate.
 * @example const host = await attachToolPool(gate, { root, runner: createAgentRunner({ gate, model, root }) });
 */
export async function attachToolPool(
  gate: HostGate,
  options: { root: string; runner: AgentRunner; logger?: Logger },
): Promise<SessionHost> {
  // A copy: registering into the gate must not make the pool rebuild itself around its own MCP tools.
  const builtins = new ToolRegistry(options.logger ? { logger: options.logger } : {});
  for (const tool of gate.registry.list()) builtins.register(tool);
  const pools = new ToolPools({
    builtins,
    runner: options.runner,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(gate.workspaceTrusted !== undefined ? { trusted: () => gate.workspaceTrusted === true } : {}),
  });
  const pool = await pools.get(options.root);
  for (const tool of pool.registry.list()) {
    if (gate.registry.has(tool.name)) continue;
    try {
      gate.register(tool);
    } catch (error) {
      options.logger?.warn(`tool ${tool.name} left out: ${(error as Error).message}`);
    }
  }
  return {
    pools,
    names: gate.registry.names(),
    async resolveAgent(name, depth = 0) {
      const { agents, problems } = await loadAgentDefinitions(options.root);
      const agent = agents.find((a) => a.name === name);
      if (!agent) {
        const known = agents.map((a) => a.name).join(", ") || "none";
        const broken = problems.find((p) => p.file.endsWith(`/${name}.md`));
        throw new ConfigError(
          broken
            ? `agent ${name}: ${broken.file}: ${broken.reason}`
            : `agent ${JSON.stringify(name)} is not defined in .toolgate/agents/ (defined: ${known})`,
        );
      }
      return { ...(await pools.resolve(options.root, agent, depth)), agent };
    },
    close: () => pools.close(),
  };
}
