import { describe, expect, it } from "vitest";
import { toolSummary } from "./tool-summary.js";

describe("toolSummary (chat's banner count, issue #11)", () => {
  const builtins = ["edit_file", "glob", "grep", "ls", "read_file"];
  const rows: [string, string[], string][] = [
    ["no tools", [], "0 tools"],
    ["one built-in tool", ["read_file"], "1 tool"],
    ["built-ins only", builtins, "5 tools"],
    [
      "built-ins and the coordination tools",
      [...builtins, "list_available_agents", "spawn_agents"],
      "7 tools (5 built-in, 2 for sub-agents: list_available_agents, spawn_agents)",
    ],
    [
      "built-ins, MCP tools and one coordination tool",
      [...builtins, "mcp__gh__get_issue", "mcp__gh__list", "spawn_agents"],
      "8 tools (5 built-in, 2 from MCP servers, 1 for sub-agents: spawn_agents)",
    ],
    ["MCP tools only", ["mcp__gh__get_issue"], "1 tool (1 from MCP servers)"],
  ];
  it.each(rows)("%s", (_note, names, want) => {
    expect(toolSummary(names)).toBe(want);
  });
});
