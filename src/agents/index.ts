/**
 * @module agents
 * Public surface of the agents folder: per-project tool pools, agent definitions, tool resolution with
 * sub-agent restrictions, and the coordination tools. Anything added here is public.
 */

export { type AgentsCliIo, agentsUsage, runAgentsCommand } from "./cli.js";
export {
  type AgentRunner,
  type AgentRunRequest,
  type AgentRunResult,
  type CoordinationHost,
  createListAvailableAgentsTool,
  createSpawnAgentsTool,
} from "./coordination.js";
export {
  type AgentDefinition,
  type AgentDefinitions,
  type AgentFileProblem,
  agentsDir,
  DEFAULT_MAX_DEPTH,
  loadAgentDefinitions,
  parseAgentDefinition,
} from "./definitions.js";
export {
  type AgentWhitelist,
  COORDINATION_TOOLS,
  createScope,
  LIST_AVAILABLE_AGENTS,
  type Resolution,
  resolveTools,
  SPAWN_AGENTS,
} from "./resolve.js";
export { type ToolPool, ToolPools, type ToolPoolsOptions } from "./tool-pool.js";
