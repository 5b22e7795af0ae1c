/**
 * End to end through the real pipeline (`executeCall`), the real policy engine and a real MCP server:
 * scopes are enforced in code (spec: Tool Filtering Security Enforcement), fixed per execution, and
 * spawn_agents runs children at depth + 1 with their own scopes.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentRunner, AgentRunRequest } from "./agents/coordination.js";
import { graphRegistry } from "./agents/testdata/graph-tools.js";
import { MessageBus } from "./bus/index.js";
import type { ToolCall, ToolRegistry, ToolScope } from "./core/index.js";
import { type CallResult, executeCall, type PipelineDeps } from "./core/index.js";
import { testServerPath } from "./mcp-client/testdata/servers.js";
import { builtinDefaultPolicy, PolicyEngine, parsePolicy } from "./policy/index.js";
import { type ToolGeneration, ToolSource } from "./tool-source.js";

const AGENTS: Record<string, string> = {
  researcher: "tools: [search_hybrid, entities_get, graph_traverse]",
  "entity-worker": "tools: ['entities_*']",
  delegator: "tools: [spawn_agents, list_available_agents, entities_get]",
  watcher: "tools: ['mcp__t__added_*', mcp__t__add_tool]",
  empty: "tools: []",
  failing: "tools: [entities_get]",
};

/** A host runner that runs a scripted agent: its task is a JSON list of calls, each through the pipeline. */
function scriptedRunner(deps: () => Promise<PipelineDeps>, seen: AgentRunRequest[]): AgentRunner {
  return {
    async run(request) {
      seen.push(request);
      if (request.agent.name === "failing") return { ok: false, output: "partial", error: "gave up" };
      const calls = JSON.parse(request.task) as ToolCall[];
      const outputs: string[] = [];
      for (const c of calls) {
        const r = await executeCall(await deps(), c, { scope: request.scope, signal: request.signal });
        outputs.push(r.llmContent);
      }
      return { ok: true, output: outputs.join(" | ") };
    },
  };
}

/** The gate's tool source over `root`, every MCP file trusted and every tool admitted. */
function sourceOf(root: string, host: ToolRegistry): ToolSource {
  return new ToolSource({
    host,
    root,
    mcp: true,
    trusted: () => true,
    admit: () => undefined,
    logger: { warn: () => undefined },
  });
}

describe("scopes through the pipeline", () => {
  let root: string;
  let pools: ToolSource;
  let deps: () => Promise<PipelineDeps>;
  const seen: AgentRunRequest[] = [];
  const run = async (call: ToolCall, scope?: ToolScope): Promise<CallResult> =>
    executeCall(await deps(), call, scope ? { scope } : {});

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-enforce-"));
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    for (const [name, tools] of Object.entries(AGENTS)) {
      await writeFile(
        join(root, ".toolgate", "agents", `${name}.md`),
        `---\ndescription: The ${name}\n${tools}\n---\nDo it.\n`,
      );
    }
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [testServerPath] } } }),
    );
    const policy = await parsePolicy('default = "allow"', "test-policy.toml");
    const engine = new PolicyEngine({ policy, roots: [root] });
    deps = async () => ({ registry: (await pools.full()).registry, decider: engine });
    pools = sourceOf(root, graphRegistry());
    pools.attach(scriptedRunner(() => deps(), seen));
  });
  afterAll(async () => {
    await pools.close();
    await rm(root, { recursive: true, force: true });
  });

  it("lets an agent call only its resolved tools; others are 'tool not found', naming only that tool", async () => {
    const { scope, tools } = await pools.resolveAgent("researcher", 0);
    expect(tools).toEqual(["entities_get", "graph_traverse", "search_hybrid"]);
    expect((await run({ name: "graph_traverse", args: { q: "x" } }, scope)).llmContent).toBe(
      'graph_traverse({"q":"x"})',
    );
    const refused = await run({ name: "entities_create", args: {} }, scope);
    expect(refused.error).toEqual({ type: "tool_not_found", message: 'tool not found: "entities_create"' });
    expect(refused.llmContent).toBe('Error (tool_not_found): tool not found: "entities_create"');
    // The tool exists in the pool: without a scope it runs.
    expect((await run({ name: "entities_create", args: {} })).ok).toBe(true);
  });

  it("refuses an MCP tool outside the scope the same way", async () => {
    const { scope } = await pools.resolveAgent("entity-worker", 1);
    expect((await run({ name: "mcp__t__echo", args: { text: "x" } }, scope)).error?.message).toBe(
      'tool not found: "mcp__t__echo"',
    );
  });

  it("an empty whitelist refuses everything, coordination tools included, at any depth", async () => {
    for (const depth of [0, 1]) {
      const { scope, tools } = await pools.resolveAgent("empty", depth);
      expect(tools).toEqual([]);
      for (const name of ["entities_get", "spawn_agents", "list_available_agents"]) {
        expect((await run({ name, args: {} }, scope)).error?.type).toBe("tool_not_found");
      }
    }
  });

  it("fixes glob resolution for the execution; the next execution sees the new MCP tool", async () => {
    const first = await pools.resolveAgent("watcher", 0);
    expect(first.tools).toEqual(["mcp__t__add_tool"]);
    expect(first.warnings).toEqual([
      'agent watcher: tool pattern "mcp__t__added_*" matches no tool in the pool; skipped',
    ]);
    expect((await run({ name: "mcp__t__add_tool" }, first.scope)).llmContent).toBe("added");
    let pool: ToolGeneration = await pools.full();
    for (let i = 0; i < 3000 && !pool.names.some((n) => n.startsWith("mcp__t__added_")); i++) {
      await new Promise((r) => setTimeout(r, 20));
      pool = await pools.full();
    }
    const added = pool.names.find((n) => n.startsWith("mcp__t__added_"))!;
    expect(added).toBeDefined();
    expect((await run({ name: added }, first.scope)).error?.message).toBe(`tool not found: "${added}"`);
    const next = await pools.resolveAgent("watcher", 0);
    expect(next.tools).toContain(added);
    expect((await run({ name: added }, next.scope)).ok).toBe(true);
  });

  it("puts MCP tools through the policy: read-only annotations do not make the default policy allow", async () => {
    const policy = await builtinDefaultPolicy();
    const strict: PipelineDeps = { ...(await deps()), decider: new PolicyEngine({ policy, roots: [root] }) };
    const r = await executeCall(strict, { name: "mcp__t__echo", args: { text: "hi" } });
    expect(r.decision).toBe("ask");
    expect(r.error?.type).toBe("denied_by_policy");
    const bus = new MessageBus();
    bus.onConfirmation((req) => ({
      approved: req.details.toolName === "mcp__t__echo" && req.details.type === "mcp",
    }));
    const approved = await executeCall(
      { ...strict, confirmer: bus },
      { name: "mcp__t__echo", args: { text: "hi" } },
    );
    expect(approved.llmContent).toBe("hi");
  });

  it("lists the agents a caller may spawn", async () => {
    const r = await run({ name: "list_available_agents" });
    expect(r.data).toEqual(
      Object.keys(AGENTS)
        .sort()
        .map((name) => ({ name, description: `The ${name}` })),
    );
    expect(r.llmContent.split("\n")[0]).toBe("- delegator: The delegator");
  });

  it("spawns children in parallel at depth 1, each with its own scope, reporting each result on its own", async () => {
    seen.length = 0;
    const r = await run({
      name: "spawn_agents",
      args: {
        agents: [
          {
            agent: "researcher",
            task: JSON.stringify([{ name: "entities_get", args: { q: "a" } }, { name: "entities_create" }]),
          },
          { agent: "failing", task: "[]" },
          { agent: "nobody", task: "[]" },
        ],
      },
    });
    expect(r.ok).toBe(true);
    // This runner's children report no label of their own: each that ran counts as untrusted and private (fail
    // closed); one that never started read nothing.
    const label = { integrity: "untrusted", confidentiality: "private", sources: [] };
    const nothingRead = { integrity: "trusted", confidentiality: "public", sources: [] };
    expect(r.data).toEqual([
      {
        agent: "researcher",
        ok: true,
        output: 'entities_get({"q":"a"}) | Error (tool_not_found): tool not found: "entities_create"',
        label,
      },
      { agent: "failing", ok: false, output: "partial", error: "gave up", label },
      { agent: "nobody", ok: false, output: "", error: 'unknown agent "nobody"', label: nothingRead },
    ]);
    expect(r.llmContent.split("\n")[0]).toBe("1 of 3 sub-agent(s) succeeded");
    expect(seen.map((s) => [s.agent.name, s.depth, [...s.scope.tools]])).toEqual([
      ["researcher", 1, ["entities_get", "graph_traverse", "search_hybrid"]],
      ["failing", 1, ["entities_get"]],
    ]);
  });

  it("lets an opted-in child spawn at depth 2, where spawn_agents is gone with a warning", async () => {
    seen.length = 0;
    const grandchildTask = JSON.stringify([
      { name: "spawn_agents", args: { agents: [{ agent: "researcher", task: "[]" }] } },
    ]);
    const childTask = JSON.stringify([
      { name: "spawn_agents", args: { agents: [{ agent: "delegator", task: grandchildTask }] } },
    ]);
    const r = await run({
      name: "spawn_agents",
      args: { agents: [{ agent: "delegator", task: childTask }] },
    });
    expect(r.ok).toBe(true);
    expect(seen.map((s) => [s.agent.name, s.depth, [...s.scope.tools], s.warnings])).toEqual([
      ["delegator", 1, ["entities_get", "list_available_agents", "spawn_agents"], []],
      [
        "delegator",
        2,
        ["entities_get", "list_available_agents"],
        ["agent delegator: spawn_agents removed: max depth 2 reached (depth 2)"],
      ],
    ]);
    // the grandchild's own attempt to spawn is refused by its scope
    expect(r.llmContent).toContain('Error (tool_not_found): tool not found: "spawn_agents"');
  });
});

describe("spawn_agents without a runner", () => {
  it("answers with a clear error", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolgate-norunner-"));
    const pools = sourceOf(root, graphRegistry());
    try {
      const pool = await pools.full();
      const policy = await parsePolicy('default = "allow"', "test-policy.toml");
      const r = await executeCall(
        { registry: pool.registry, decider: new PolicyEngine({ policy, roots: [root] }) },
        { name: "spawn_agents", args: { agents: [{ agent: "x", task: "y" }] } },
      );
      expect(r.error).toEqual({
        type: "execution_failed",
        message: "spawn_agents cannot start sub-agents: no agent runner is configured in this host",
      });
    } finally {
      await pools.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
