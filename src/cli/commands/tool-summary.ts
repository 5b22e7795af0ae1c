/**
 * @module cli/commands/tool-summary
 * How `chat` counts its tools in the banner. `toolgate tools` lists the gate's registry; a chat session
 * also has the project's MCP tools and the two coordination tools that start sub-agents, so a bare count
 * would disagree with `tools`. The summary says where the extra tools come from.
 */
import { COORDINATION_TOOLS } from "../../agents/index.js";

/**
 * `"15 tools (13 built-in, 2 for sub-agents: list_available_agents, spawn_agents)"`, with
 * `N from MCP servers` when there are any; parts that are zero are left out, and a list of built-in tools
 * only is just counted.
 */
export function toolSummary(names: readonly string[]): string {
  const coordination = names.filter((n) => COORDINATION_TOOLS.includes(n));
  const mcp = names.filter((n) => n.startsWith("mcp__") && !coordination.includes(n));
  const builtIn = names.length - coordination.length - mcp.length;
  const parts: string[] = [];
  if (builtIn > 0) parts.push(`${builtIn} built-in`);
  if (mcp.length > 0) parts.push(`${mcp.length} from MCP servers`);
  if (coordination.length > 0)
    parts.push(`${coordination.length} for sub-agents: ${coordination.join(", ")}`);
  const total = `${names.length} tool${names.length === 1 ? "" : "s"}`;
  return builtIn === names.length ? total : `${total} (${parts.join(", ")})`;
}
