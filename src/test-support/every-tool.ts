/**
 * Every tool toolgate ships, as a user gets them: a gate's built-in tools (Jira and Confluence configured, so
 * they register) plus the two coordination tools a session adds. For tests that must cover each one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createListAvailableAgentsTool, createSpawnAgentsTool } from "../agents/index.js";
import type { Tool } from "../core/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";

export interface EveryTool {
  root: string;
  gate: Toolgate;
  tools: Tool[];
  close(): Promise<void>;
}

export async function everyTool(prefix: string): Promise<EveryTool> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const gate = await createToolgate({
    roots: [root],
    policy: false,
    logger: { warn: () => {} },
    env: {
      JIRA_BASE_URL: "https://example.atlassian.net",
      JIRA_API_TOKEN: "unused",
      CONFLUENCE_BASE_URL: "https://example.atlassian.net/wiki",
      CONFLUENCE_API_TOKEN: "unused",
    },
  });
  const host = {
    root,
    agents: async () => ({ agents: [], problems: [], warnings: [] }),
    poolNames: async () => [],
  };
  const tools = [...gate.registry.list(), createListAvailableAgentsTool(host), createSpawnAgentsTool(host)];
  return {
    root,
    gate,
    tools,
    async close() {
      await gate.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
