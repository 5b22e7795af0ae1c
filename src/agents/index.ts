/**
 * @module agents
 * Front door of the agents folder: agent definitions, tool resolution with sub-agent restrictions, and the
 * coordination tools (the gate's tool source, `src/tool-source.ts`, adds them to the project's pool). Cheap
 * to import: it loads no MCP code.
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
