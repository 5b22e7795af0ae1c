/**
 * @module agents
 * Public surface of the agents folder: per-project tool pools, agent definitions, tool resolution with
 * sub-agent restrictions, and the coordination tools. Anything added here is public.
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
export { type McpFileTrust, type ToolPool, ToolPools } from "./tool-pool.js";
