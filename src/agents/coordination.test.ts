import { describe, expect, it } from "vitest";
import type { ToolScope } from "../core/index.js";
import {
  type AgentRunRequest,
  type AgentRunResult,
  type CoordinationHost,
  createListAvailableAgentsTool,
  createSpawnAgentsTool,
} from "./coordination.js";
import type { AgentDefinition, AgentDefinitions } from "./definitions.js";

const agent = (name: string, tools: string[], maxDepth = 2): AgentDefinition => ({
  name,
  description: `${name} agent`,
  tools,
  maxDepth,
  instructions: "",
});

function host(
  runner?: (r: AgentRunRequest) => Promise<AgentRunResult>,
): CoordinationHost & { seen: AgentRunRequest[] } {
  const seen: AgentRunRequest[] = [];
  const defs: AgentDefinitions = {
    agents: [agent("reader", ["read_file", "spawn_agents"]), agent("writer", ["write_file"])],
    problems: [],
    warnings: [],
  };
  return {
    root: "/project",
    seen,
    agents: async () => defs,
    poolNames: async () => ["list_available_agents", "read_file", "spawn_agents", "write_file"],
    logger: { warn: () => undefined },
    ...(runner
      ? {
          runner: {
            run: async (request: AgentRunRequest) => {
              seen.push(request);
              return runner(request);
            },
          },
        }
      : {}),
  };
}

const signal = new AbortController().signal;

describe("coordination tools", () => {
  it("list_available_agents lists each definition's name and description", async () => {
    const r = await createListAvailableAgentsTool(host()).build({}).run(signal);
    expect(r.llmContent).toBe("- reader: reader agent\n- writer: writer agent");
  });

  it("spawn_agents without a runner is a clear error", async () => {
    const r = await createSpawnAgentsTool(host())
      .build({ agents: [{ agent: "reader", task: "t" }] })
      .run(signal);
    expect(r.error?.message).toBe(
      "spawn_agents cannot start sub-agents: no agent runner is configured in this host",
    );
  });

  it("runs children in parallel, one depth below the caller, each with its own scope, reported separately", async () => {
    const h = host(async (request) =>
      request.agent.name === "writer"
        ? { ok: false, output: "", error: "disk full" }
        : { ok: true, output: "read it" },
    );
    const caller: ToolScope = { tools: new Set(["spawn_agents"]), agent: "lead", depth: 1 };
    const r = await createSpawnAgentsTool(h)
      .build({
        agents: [
          { agent: "reader", task: "read" },
          { agent: "writer", task: "write" },
          { agent: "ghost", task: "x" },
        ],
      })
      .run(signal, undefined, { scope: caller });
    expect(r.returnDisplay).toBe("1 of 3 sub-agent(s) succeeded");
    expect(r.llmContent).toContain("## 1. reader: succeeded\nread it");
    expect(r.llmContent).toContain("## 2. writer: failed\ndisk full");
    expect(r.llmContent).toContain('## 3. ghost: failed\nunknown agent "ghost"');
    expect(h.seen.map((s) => [s.agent.name, s.depth, [...s.scope.tools].sort()])).toEqual([
      // depth 2 = max_depth: spawn_agents is removed even though "reader" names it.
      ["reader", 2, ["read_file"]],
      ["writer", 2, ["write_file"]],
    ]);
  });
});
