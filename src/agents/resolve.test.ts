import { describe, expect, it } from "vitest";
import { createScope, resolveTools } from "./resolve.js";

/** A pool like the spec's: graph tools, MCP tools, coordination tools. Sorted. */
const POOL = [
  "Entities_Upper",
  "entities_create",
  "entities_delete",
  "entities_get",
  "entities_update",
  "entitiesx",
  "graph_traverse",
  "list_available_agents",
  "mcp__github__create_issue",
  "mcp__github__list_prs",
  "mcp__gitlab__x",
  "search_hybrid",
  "spawn_agents",
].sort();

function resolve(tools: string[], depth = 0, maxDepth?: number) {
  return resolveTools({ name: "probe", tools, ...(maxDepth === undefined ? {} : { maxDepth }) }, depth, POOL);
}

describe("resolveTools: per-agent filtering (spec: Per-Agent Tool Filtering)", () => {
  it("returns exactly the 3 named tools", () => {
    expect(resolve(["search_hybrid", "entities_get", "graph_traverse"])).toMatchObject({
      tools: ["entities_get", "graph_traverse", "search_hybrid"],
      warnings: [],
    });
  });

  it("expands a glob to every matching tool, anchored and case-sensitive", () => {
    expect(resolve(["entities_*"]).tools).toEqual([
      "entities_create",
      "entities_delete",
      "entities_get",
      "entities_update",
    ]);
  });

  it("gives the whole pool for *", () => {
    expect(resolve(["*"]).tools).toEqual(POOL);
  });

  it("warns about a name that is not in the pool, naming agent and entry, and resolves the rest", () => {
    const r = resolve(["entities_get", "no_such_tool", "nomatch_*"]);
    expect(r.tools).toEqual(["entities_get"]);
    expect(r.warnings).toEqual([
      'agent probe: tool "no_such_tool" is not in the pool; skipped',
      'agent probe: tool pattern "nomatch_*" matches no tool in the pool; skipped',
    ]);
  });

  it("sends each warning to the logger", () => {
    const logged: string[] = [];
    resolveTools({ name: "a", tools: ["ghost"] }, 0, POOL, { warn: (m) => logged.push(m) });
    expect(logged).toEqual(['agent a: tool "ghost" is not in the pool; skipped']);
  });

  it("never reports coordination tools as not found, even when the pool lacks them", () => {
    const r = resolveTools({ name: "a", tools: ["spawn_agents", "list_available_agents"] }, 0, ["read_file"]);
    expect(r).toMatchObject({ tools: ["list_available_agents", "spawn_agents"], warnings: [] });
  });

  it("is deterministic: sorted, without duplicates, whatever the whitelist order", () => {
    const a = resolve(["search_hybrid", "entities_*", "entities_get", "mcp__github__*"]).tools;
    const b = resolve(["mcp__github__*", "entities_get", "search_hybrid", "entities_*"]).tools;
    expect(a).toEqual(b);
    expect(a).toEqual([...new Set(a)].sort());
  });
});

describe("resolveTools: sub-agent restrictions (spec: Sub-Agent Tool Restrictions)", () => {
  it.each([
    // note, whitelist, depth, max_depth, expected coordination tools, expected warnings
    ["top level with * keeps both", ["*"], 0, undefined, ["list_available_agents", "spawn_agents"], []],
    ["sub-agent with * loses both (a * is no opt-in)", ["*"], 1, undefined, [], []],
    ["sub-agent with a glob matching them loses both", ["spawn_*", "list_*"], 1, undefined, [], []],
    [
      "naming spawn_agents keeps only spawn_agents",
      ["spawn_agents", "*"],
      1,
      undefined,
      ["spawn_agents"],
      [],
    ],
    [
      "naming list_available_agents keeps only it",
      ["list_available_agents"],
      1,
      undefined,
      ["list_available_agents"],
      [],
    ],
    [
      "naming both keeps both below max depth",
      ["spawn_agents", "list_available_agents"],
      1,
      undefined,
      ["list_available_agents", "spawn_agents"],
      [],
    ],
    [
      "at max depth (default 2) spawn_agents is removed with a warning",
      ["spawn_agents", "list_available_agents"],
      2,
      undefined,
      ["list_available_agents"],
      ["agent probe: spawn_agents removed: max depth 2 reached (depth 2)"],
    ],
    [
      "past max depth too",
      ["spawn_agents"],
      5,
      undefined,
      [],
      ["agent probe: spawn_agents removed: max depth 2 reached (depth 5)"],
    ],
    ["a raised max_depth keeps spawn_agents at depth 2", ["spawn_agents"], 2, 3, ["spawn_agents"], []],
    [
      "max_depth 1 removes it at depth 1",
      ["spawn_agents"],
      1,
      1,
      [],
      ["agent probe: spawn_agents removed: max depth 1 reached (depth 1)"],
    ],
    [
      "max_depth 0 removes it even at the top",
      ["*"],
      0,
      0,
      ["list_available_agents"],
      ["agent probe: spawn_agents removed: max depth 0 reached (depth 0)"],
    ],
  ])("%s", (_note, tools, depth, maxDepth, coordination, warnings) => {
    const r = resolve(tools as string[], depth as number, maxDepth as number | undefined);
    expect(r.tools.filter((t) => t === "spawn_agents" || t === "list_available_agents")).toEqual(
      coordination,
    );
    expect(r.warnings).toEqual(warnings);
  });

  it.each([0, 1, 2, 3])("an empty whitelist gives no tools at depth %i", (depth) => {
    expect(resolve([], depth)).toMatchObject({ tools: [], warnings: [] });
  });

  it("keeps the other tools of a sub-agent with *", () => {
    expect(resolve(["*"], 1).tools).toEqual(
      POOL.filter((t) => t !== "spawn_agents" && t !== "list_available_agents"),
    );
  });
});

describe("resolveTools: the scope (spec: Glob resolution at build time)", () => {
  it("is frozen: later pool changes and mutation attempts do not change it", () => {
    const pool = [...POOL];
    const r = resolveTools({ name: "gh", tools: ["mcp__github__*"] }, 1, pool);
    pool.push("mcp__github__new_tool");
    expect([...r.scope.tools]).toEqual(["mcp__github__create_issue", "mcp__github__list_prs"]);
    expect(r.scope.tools.has("mcp__github__new_tool")).toBe(false);
    expect(() =>
      ((r.scope.tools as unknown as Set<string>).add as unknown as (s: string) => void)("x"),
    ).toThrow();
    expect(() => {
      (r.scope as { agent?: string }).agent = "other";
    }).toThrow(TypeError);
    expect(r.scope).toMatchObject({ agent: "gh", depth: 1 });
    // the next resolution picks the new tool up
    expect(resolveTools({ name: "gh", tools: ["mcp__github__*"] }, 1, pool.sort()).tools).toContain(
      "mcp__github__new_tool",
    );
  });

  it("createScope gives a read-only set", () => {
    const scope = createScope(["b", "a"], "x", 0);
    expect(scope.tools.size).toBe(2);
    expect(scope.tools.has("a")).toBe(true);
    expect([...scope.tools.keys()]).toEqual(["b", "a"]);
  });
});

describe("tool entries use the policy's pattern dialect (core/tool-pattern)", () => {
  it("braces pick tools of two servers, as in policy.toml", () => {
    expect(resolve(["mcp__{github,gitlab}__*"]).tools).toEqual([
      "mcp__github__create_issue",
      "mcp__github__list_prs",
      "mcp__gitlab__x",
    ]);
  });

  it("extglobs and negated classes work", () => {
    expect(resolve(["entities_@(get|create)", "entities_[!cdg]*"]).tools).toEqual([
      "entities_create",
      "entities_get",
      "entities_update",
    ]);
  });

  it("a malformed entry is a warning naming the agent and the reason, not a failure", () => {
    expect(resolve(["entities_[a", "entities_get"])).toMatchObject({
      tools: ["entities_get"],
      warnings: [
        'agent probe: tool entry "entities_[a" skipped: malformed tool glob "entities_[a": Missing closing: "]" - use "\\\\]" to match literal characters',
      ],
    });
  });
});
