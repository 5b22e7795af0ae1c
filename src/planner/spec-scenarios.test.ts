/**
 * Every scenario of the planner tool guard, one test each, named after the scenario, plus the
 * decisions of the design notes.
 */
import { describe, expect, it } from "vitest";
import { buildCall, isApplicable } from "./build-call.js";
import { plan } from "./plan.js";
import { DEFAULT_PROFILE } from "./profile.js";
import type { PlanInput } from "./types.js";

const ALL = [
  "grep_search",
  "vector_search",
  "hybrid_search",
  "local_file_qa",
  "read_file",
  "graph_related",
  "jira_fetch",
  "confluence_fetch",
  "web_fetch",
];
/** A query every special tool would apply to, so only the whitelist can keep them out. */
const RICH_QUERY = "PROJ-123 的状态，Confluence 页面 123456，以及 https://example.com 的内容";
const REASONING =
  "I could use grep_search or vector_search. Maybe jira_fetch, confluence_fetch, or web_fetch would help too.";

function textPlan(extra: Partial<PlanInput>): ReturnType<typeof plan> {
  return plan({ query: RICH_QUERY, reply: { text: REASONING }, scope: ALL, round: 1, ...extra });
}

describe("Requirement: Filter tool extraction by routing whitelist", () => {
  it("Scenario: Routing plan suggests vector_search only", () => {
    const result = textPlan({ routing: { suggested_tools: ["vector_search"] } });
    expect(result.method).toBe("text");
    expect(result.calls).toEqual([{ name: "vector_search", args: { query: RICH_QUERY } }]);
    for (const name of ["grep_search", "jira_fetch", "confluence_fetch", "web_fetch"]) {
      expect(result.skipped).toContainEqual({ name, reason: "not in the routing plan's suggested_tools" });
    }
  });

  it("Scenario: No routing plan available", () => {
    const want = ["grep_search", "vector_search", "jira_fetch", "confluence_fetch", "web_fetch"];
    expect(textPlan({}).calls.map((c) => c.name)).toEqual(want);
    expect(textPlan({ routing: { query_type: "lookup" } }).calls.map((c) => c.name)).toEqual(want);
    expect(textPlan({ routing: { suggested_tools: [] } }).calls.map((c) => c.name)).toEqual(want);
  });
});

describe("Requirement: Validate tool applicability before invocation", () => {
  it("Scenario: Jira tool with no ticket pattern", () => {
    const result = plan({
      query: "what is the status of the login bug?",
      reply: { text: "Use jira_fetch and vector_search." },
      scope: ALL,
    });
    expect(result.calls.map((c) => c.name)).toEqual(["vector_search"]);
    expect(result.skipped).toContainEqual({
      name: "jira_fetch",
      reason: "not applicable: no Jira issue key (like PROJ-123) in the query",
    });
  });

  it("Scenario: Jira tool with valid ticket pattern", () => {
    const result = plan({
      query: "PROJ-123 的状态是什么？",
      reply: { text: "我会用 jira_fetch 查询。" },
      scope: ALL,
    });
    expect(result).toMatchObject({
      method: "text",
      calls: [{ name: "jira_fetch", args: { issue_key: "PROJ-123" } }],
    });
  });

  it("Scenario: Web fetch with no URL", () => {
    const result = plan({
      query: "总结 example 网站的内容",
      reply: { text: "use web_fetch" },
      scope: ALL,
      round: 1,
    });
    expect(result.calls).toEqual([]);
    expect(result.skipped).toEqual([
      { name: "web_fetch", reason: "not applicable: no http(s) URL in the query" },
    ]);
  });

  it("Scenario: Web fetch with valid URL", () => {
    const result = plan({
      query: "总结 https://example.com 的内容",
      reply: { text: "use web_fetch" },
      scope: ALL,
    });
    expect(result.calls).toEqual([{ name: "web_fetch", args: { url: "https://example.com" } }]);
  });

  it("Scenario: Confluence with no page reference", () => {
    const result = plan({
      query: "how do we deploy?",
      reply: { text: "confluence_fetch, then grep_search" },
      scope: ALL,
    });
    expect(result.calls.map((c) => c.name)).toEqual(["grep_search"]);
    expect(result.skipped).toContainEqual({
      name: "confluence_fetch",
      reason: "not applicable: the query names no Confluence page, wiki or page id",
    });
  });

  it("Scenario: General search tools are always applicable", () => {
    const general = [
      "grep_search",
      "vector_search",
      "hybrid_search",
      "local_file_qa",
      "read_file",
      "graph_related",
    ];
    for (const query of ["", "随便问问", "what is 2+2?", "UTF-8 GPT-4"]) {
      for (const name of general)
        expect(isApplicable(DEFAULT_PROFILE.tools[name]!.needs, { query })).toBe(true);
    }
    const result = plan({
      query: "explain src/core/types.ts",
      reply: { text: general.join(", ") },
      scope: ALL,
    });
    expect(result.calls.map((c) => c.name)).toEqual(general);
  });
});

describe("Requirement: Build tool-appropriate arguments", () => {
  it("Scenario: Search tools use query or sub-question text", () => {
    const search = ["grep_search", "vector_search", "hybrid_search", "local_file_qa"];
    const withSubs = plan({
      query: "compare A and B",
      reply: { text: "ignored" },
      routing: { sub_questions: ["what is A?", "what is B?"], suggested_tools: search },
      scope: ALL,
    });
    expect(withSubs.method).toBe("routing");
    for (const name of search) {
      expect(withSubs.calls.filter((c) => c.name === name).map((c) => c.args)).toEqual([
        { query: "what is A?" },
        { query: "what is B?" },
      ]);
    }
    const withoutSubs = plan({ query: "compare A and B", reply: { text: search.join(" ") }, scope: ALL });
    expect(withoutSubs.calls).toEqual(search.map((name) => ({ name, args: { query: "compare A and B" } })));
  });

  it("Scenario: Jira fetch uses extracted issue key", () => {
    const query = "Why is PROJ-77 blocked?";
    const result = plan({ query, reply: { text: "jira_fetch" }, scope: ALL });
    expect(result.calls).toEqual([{ name: "jira_fetch", args: { issue_key: "PROJ-77" } }]);
    expect(result.calls[0]!.args.issue_key).not.toBe(query);
  });

  it("Scenario: Web fetch uses extracted URL", () => {
    const query = "read https://docs.example.org/guide and tell me the steps";
    const result = plan({ query, reply: { text: "web_fetch" }, scope: ALL });
    expect(result.calls).toEqual([{ name: "web_fetch", args: { url: "https://docs.example.org/guide" } }]);
  });

  it("Scenario: Tool arg extraction returns None for invalid input", () => {
    // read_file is applicable to any query, but without a path its argument cannot be built: skipped.
    expect(buildCall("read_file", DEFAULT_PROFILE.tools.read_file, { query: "read the config" })).toEqual({
      name: "read_file",
      reason: 'skipped: no value for argument "path" (no file path in the query or the reply)',
    });
    const result = plan({
      query: "what changed?",
      routing: {
        sub_questions: ["what changed in the API?"],
        suggested_tools: ["web_fetch", "vector_search"],
      },
      scope: ALL,
    });
    expect(result.calls).toEqual([{ name: "vector_search", args: { query: "what changed in the API?" } }]);
    expect(result.skipped).toEqual([
      { name: "web_fetch", reason: "not applicable: no http(s) URL in the query" },
    ]);
  });
});

describe("Design decisions (spec 003)", () => {
  it("fan-out is one call per sub-question × suggested tool, duplicates dropped", () => {
    const result = plan({
      query: "PROJ-1 和 PROJ-2 有什么区别？",
      routing: {
        sub_questions: ["PROJ-1 是什么？", "PROJ-2 是什么？", "PROJ-1 是什么？"],
        suggested_tools: ["jira_fetch", "vector_search"],
      },
      scope: ALL,
    });
    expect(result.calls).toEqual([
      { name: "jira_fetch", args: { issue_key: "PROJ-1" } },
      { name: "jira_fetch", args: { issue_key: "PROJ-2" } },
      { name: "vector_search", args: { query: "PROJ-1 是什么？" } },
      { name: "vector_search", args: { query: "PROJ-2 是什么？" } },
    ]);
  });

  it("no fan-out after the first round or when context exists", () => {
    const routing = { sub_questions: ["q1"], suggested_tools: ["vector_search"] };
    const reply = { text: '{"name": "grep", "arguments": {"pattern": "x"}}' };
    expect(plan({ query: "q", reply, routing, scope: ALL, round: 1 }).method).toBe("json");
    expect(plan({ query: "q", reply, routing, scope: ALL, hasContext: true }).method).toBe("json");
    expect(plan({ query: "q", reply, routing, scope: ALL }).method).toBe("routing");
  });

  it("the fan-out can be turned off", () => {
    const routing = { sub_questions: ["q1"], suggested_tools: ["vector_search"] };
    const reply = { text: '{"name": "grep", "arguments": {"pattern": "x"}}' };
    expect(plan({ query: "q", reply, routing, scope: ALL, fanOut: false }).method).toBe("json");
  });

  it("structured calls keep the model's autonomy (no whitelist, no applicability filter)", () => {
    const result = plan({
      query: "no key here",
      reply: { text: '<tool_call>{"name": "jira_fetch", "arguments": {"issue_key": "OPS-9"}}</tool_call>' },
      routing: { suggested_tools: ["vector_search"] },
      scope: ["vector_search"],
    });
    expect(result).toEqual({
      method: "json",
      calls: [{ name: "jira_fetch", args: { issue_key: "OPS-9" } }],
      reason: "1 structured tool call in the reply (<tool_call> tags)",
      skipped: [],
    });
  });

  it("names outside the caller's scope are never extracted from text", () => {
    const result = plan({
      query: "https://a.com",
      reply: { text: "web_fetch it" },
      scope: ["vector_search"],
      round: 1,
    });
    expect(result.calls).toEqual([]);
    expect(result.skipped).toEqual([{ name: "web_fetch", reason: "not in the caller's scope" }]);
  });

  it("first round with nothing found: the default call", () => {
    const result = plan({ query: "how do retries work?", reply: { text: "Let me think." }, scope: ALL });
    expect(result).toEqual({
      method: "fallback",
      calls: [{ name: "hybrid_search", args: { query: "how do retries work?" } }],
      reason: "first round and no tool call found; default call hybrid_search",
      skipped: [],
    });
  });

  it("later rounds with nothing found: none", () => {
    const result = plan({ query: "q", reply: { text: "Done." }, scope: ALL, round: 2 });
    expect(result).toEqual({
      method: "none",
      calls: [],
      reason: "no tool call found (round 2: no default call after the first round)",
      skipped: [],
    });
  });
});
