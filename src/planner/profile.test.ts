import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../core/index.js";
import { defineTool, okResult } from "../core/index.js";
import { buildCall } from "./build-call.js";
import { plan } from "./plan.js";
import { inferToolRule, parsePlannerProfile, profileForTools } from "./profile.js";

function tool(name: string, parameters: JsonSchema, argKinds?: Record<string, "url" | "path">) {
  return defineTool({
    name,
    description: name,
    kind: "read",
    risk: "low",
    parameters,
    ...(argKinds ? { argKinds } : {}),
    run: async () => okResult(""),
  });
}

describe("parsePlannerProfile", () => {
  it("reads a profile written as data", () => {
    const profile = parsePlannerProfile({
      tools: {
        ticket_lookup: { needs: "jira_key", args: { key: "jira_key", verbose: { const: true } } },
        kb_search: { args: [{ id: "confluence_page_id" }, { q: "text" }] },
      },
      fallback: ["kb_search"],
    });
    expect(buildCall("ticket_lookup", profile.tools.ticket_lookup, { query: "OPS-3 please" })).toEqual({
      name: "ticket_lookup",
      args: { key: "OPS-3", verbose: true },
    });
    expect(plan({ query: "anything", scope: ["kb_search"], profile })).toMatchObject({
      method: "fallback",
      calls: [{ name: "kb_search", args: { q: "anything" } }],
    });
  });

  const bad: Array<[string, unknown, string]> = [
    ["no tools", {}, "planner profile: `tools` must be an object"],
    ["an unknown top-level key", { tools: {}, extra: 1 }, "planner profile: unknown key extra"],
    [
      "an unknown rule key",
      { tools: { a: { args: {}, when: 1 } } },
      "planner profile: tools.a: unknown key when",
    ],
    [
      "an unknown need",
      { tools: { a: { needs: "ticket", args: {} } } },
      "planner profile: tools.a.needs must be one of none, jira_key, url, confluence_ref, path",
    ],
    [
      "an unknown source",
      { tools: { a: { args: { q: "everything" } } } },
      'planner profile: tools.a.args.q: unknown source "everything"',
    ],
    [
      "a bad fallback",
      { tools: {}, fallback: "a" },
      "planner profile: `fallback` must be an array of tool names",
    ],
  ];
  for (const [note, value, message] of bad) {
    it(`refuses ${note}`, () => {
      expect(() => parsePlannerProfile(value)).toThrow(message);
    });
  }
});

describe("inferToolRule", () => {
  it("a URL argument means the tool needs a URL", () => {
    const t = tool(
      "page_snapshot",
      { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
      { target: "url" },
    );
    expect(inferToolRule(t)).toEqual({ needs: "url", args: { target: "url" } });
  });
  it("a query-like argument gets the text", () => {
    const t = tool("kb", {
      type: "object",
      properties: { question: { type: "string" } },
      required: ["question"],
    });
    expect(inferToolRule(t)).toEqual({ args: { question: "text" } });
  });
  it("an argument it cannot source means no rule", () => {
    const t = tool("x", { type: "object", properties: { count: { type: "number" } }, required: ["count"] });
    expect(inferToolRule(t)).toBeUndefined();
  });
  it("profileForTools adds inferred rules and keeps the defaults", () => {
    const t = tool("kb", { type: "object", properties: { q: { type: "string" } }, required: ["q"] });
    const profile = profileForTools([t]);
    expect(profile.tools.kb).toEqual({ args: { q: "text" } });
    expect(profile.tools.jira_fetch).toEqual({ needs: "jira_key", args: { issue_key: "jira_key" } });
  });
});
