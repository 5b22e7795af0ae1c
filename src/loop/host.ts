/**
 * @module loop/host
 * Readies a gate's tools for a session: the gate's `spawn_agents` is backed by this loop's runner, and the
 * project's pool (MCP servers, coordination tools) is listed, so the session starts with every tool. The
 * gate keeps owning the tools: later `.mcp.json` edits reach the session as new generations. Resolves a
 * named agent's scope among them.
 */
import {
  type AgentDefinition,
  type AgentRunner,
  type AgentWhitelist,
  loadAgentDefinitions,
  type Resolution,
} from "../agents/index.js";
import type { Logger, ToolRegistry } from "../core/index.js";
import { ConfigError } from "../core/index.js";

/** The part of a gate a host needs. */
export interface HostGate {
  readonly registry: ToolRegistry;
  /** Lists every tool (the project's pool included) and adopts the result. */
  tools(): Promise<{ readonly names: readonly string[] }>;
  resolveAgent(agent: string | AgentWhitelist, depth?: number): Promise<Resolution>;
  attachProjectTools(runner?: AgentRunner): void;
}

export interface SessionHost {
  /** Every tool name when the session started, sorted. */
  names: readonly string[];
  /** Resolves an agent by name at `depth` (0: the top-level agent) with its definition. */
  resolveAgent(name: string, depth?: number): Promise<Resolution & { agent: AgentDefinition }>;
  /** Detaches the runner (the gate's own `close` stops the pool's servers). */
  close(): Promise<void>;
}

/**
 * Attaches the project's tools to the gate with `spawn_agents` backed by `runner`, and lists every tool.
 * @example const host = await attachToolPool(gate, { root, runner: createAgentRunner({ gate, model, root }) });
 */
export async function attachToolPool(
  gate: HostGate,
  options: { root: string; runner: AgentRunner; logger?: Logger },
): Promise<SessionHost> {
  gate.attachProjectTools(options.runner);
  const { names } = await gate.tools();
  return {
    names,
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
      const resolution = await gate.resolveAgent(agent, depth);
      for (const warning of resolution.warnings) options.logger?.warn(warning);
      return { ...resolution, agent };
    },
    async close() {
      gate.attachProjectTools(undefined);
    },
  };
}
