/**
 * @module core/steps/resolve
 * Step 1: name → tool, within the caller's scope. A tool outside the scope is "not found", exactly like a tool
 * that does not exist, and the message names only the requested tool (never the rest of the pool).
 */
import { errorResult } from "../errors.js";
import type { ToolRegistry } from "../registry.js";
import type { Tool, ToolResult, ToolScope } from "../types.js";

export function resolveTool(registry: ToolRegistry, name: unknown, scope?: ToolScope): Tool | ToolResult {
  if (typeof name !== "string" || name.length === 0) {
    return errorResult("invalid_params", "a tool call needs a tool name");
  }
  const tool = scope && !scope.tools.has(name) ? undefined : registry.get(name);
  if (!tool) {
    const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
    return errorResult("tool_not_found", `tool not found: ${JSON.stringify(shown)}`);
  }
  return tool;
}
