/**
 * @module agents
 * Public surface of the agents folder: per-project tool pools (created through `createToolPools`, which
 * loads them and the MCP client on first use), agent definitions, tool resolution with sub-agent
 * restrictions, and the coordination tools. Cheap to import: it loads no MCP code.
 */

export {
  type AgentRunner,
  type AgentRunResult,
  createListAvailableAgentsTool,
  createSpawnAgentsTool,
} from "./coordination.js";
export { type AgentDefinition, loadAgentDefinitions } from "./definitions.js";
export {
  type AgentWhitelist,
  COORDINATION_TOOLS,
  createScope,
  type Resolution,
  resolveTools,
} from "./resolve.js";
export type { McpFileTrust, ToolPool, ToolPools, ToolPoolsOptions } from "./tool-pool.js";

import type { ToolPools, ToolPoolsOptions } from "./tool-pool.js";

/**
 * A project's tool pools, the MCP client code loaded only now: importing this front door loads neither the
 * pools nor the MCP folder, so a gate that never reaches an MCP server does not pay for them.
 * @example const pools = await createToolPools({ builtins: gate.registry, trusted: () => true });
 */
export async function createToolPools(options: ToolPoolsOptions): Promise<ToolPools> {
  const { ToolPools } = await import("./tool-pool.js");
  return new ToolPools(options);
}
