/**
 * A host registry like the spec's built-in graph tools (30+ tools: entities_*, relations_*, graph_*,
 * search_*, ...), each a real defineTool tool that answers with its name and arguments.
 */

import type { Tool } from "../../core/index.js";
import { defineTool, okResult, ToolRegistry } from "../../core/index.js";

export const GRAPH_TOOL_NAMES = [
  ...["create", "get", "update", "delete", "list", "search", "merge", "history"].map((v) => `entities_${v}`),
  ...["create", "get", "delete", "list", "search"].map((v) => `relations_${v}`),
  ...["traverse", "neighbors", "path", "stats", "export", "import"].map((v) => `graph_${v}`),
  ...["hybrid", "text", "vector", "similar"].map((v) => `search_${v}`),
  ...["list", "get", "create"].map((v) => `documents_${v}`),
  ...["list", "get"].map((v) => `projects_${v}`),
  "schema_get",
  "schema_list",
  "tags_list",
  "whoami",
];

export function graphTool(name: string): Tool {
  const readOnly =
    /_(get|list|search|traverse|neighbors|path|stats|hybrid|text|vector|similar)$/.test(name) ||
    name === "whoami";
  return defineTool({
    name,
    description: `Graph tool ${name}`,
    parameters: { type: "object", properties: { q: { type: "string" } } },
    kind: readOnly ? "read" : "edit",
    risk: readOnly ? "low" : "medium",
    run: async (params) => okResult(`${name}(${JSON.stringify(params)})`),
  }) as Tool;
}

export function graphRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  for (const name of GRAPH_TOOL_NAMES) registry.register(graphTool(name));
  return registry;
}
