/**
 * Regression tests for the defects of the original planner (spec/README.md), one describe block each.
 */
import { describe, expect, it } from "vitest";
import { buildCall, isApplicable } from "./build-call.js";
import { findJiraKeys } from "./extract-jira.js";
import { findUrls } from "./extract-url.js";
import { plan } from "./plan.js";
import { DEFAULT_PROFILE, mergeProfiles } from "./profile.js";

const SCOPE = ["vector_search", "grep_search", "jira_fetch", "web_fetch", "confluence_fetch"];

describe("regression: an empty suggested_tools list blocked every tool", () => {
  it("extracts every mentioned, applicable tool when suggested_tools is []", () => {
    const result = plan({
      query: "PROJ-5 broke https://ci.example.com/run/1",
      reply: { text: "jira_fetch and web_fetch and vector_search" },
      routing: { query_type: "debug", sub_questions: [], suggested_tools: [] },
      scope: SCOPE,
    });
    expect(result.calls.map((c) => c.name)).toEqual(["jira_fetch", "web_fetch", "vector_search"]);
  });
});

describe("regression: tool names matched as bare substrings", () => {
  it("does not find jira_fetch inside other words", () => {
    const result = plan({
      query: "PROJ-5",
      reply: { text: "myjira_fetch and jira_fetcher are unrelated helpers" },
      scope: SCOPE,
      round: 1,
    });
    expect(result.method).toBe("none");
  });
  it("does not take negated mentions", () => {
    const result = plan({
      query: "PROJ-5 status",
      reply: { text: "I don't need jira_fetch here. 也不需要 web_fetch。" },
      scope: SCOPE,
      round: 1,
    });
    expect(result.calls).toEqual([]);
    expect(result.skipped).toEqual([
      { name: "jira_fetch", reason: "mentioned only in a negated clause" },
      { name: "web_fetch", reason: "mentioned only in a negated clause" },
    ]);
  });
});

describe("regression: the Jira key pattern", () => {
  it("[A-Z]+-\\d+ matched UTF-8 and GPT-4: they are not keys", () => {
    expect(findJiraKeys("UTF-8 GPT-4 SHA-256 ISO-8601 COVID-19")).toEqual([]);
  });
  it("a \\b-based pattern missed PROJ-123的状态: it is a key", () => {
    expect(findJiraKeys("PROJ-123的状态")).toEqual(["PROJ-123"]);
  });
});

describe("regression: the URL pattern swallowed trailing CJK text and punctuation", () => {
  it("stops before CJK text", () => {
    expect(findUrls("总结https://example.com的内容")).toEqual(["https://example.com"]);
  });
  it("drops trailing punctuation and unbalanced brackets", () => {
    expect(findUrls("(see https://a.com/x).")).toEqual(["https://a.com/x"]);
  });
});

describe("regression: Confluence passed the check, then the builder silently dropped it", () => {
  const applicable = [
    "search the wiki for the on-call runbook",
    "confluence 里的发布流程",
    "https://acme.atlassian.net/wiki/spaces/ENG/pages/98765/Deploy",
    "https://confluence.acme.com/display/ENG/Release+Process",
    "https://confluence.acme.com/pages/viewpage.action?pageId=4242",
    "page 123456",
    "页面 778899 写了什么",
  ];
  for (const query of applicable) {
    it(`yields arguments whenever the guard passes: ${query}`, () => {
      expect(isApplicable("confluence_ref", { query })).toBe(true);
      const outcome = buildCall("confluence_fetch", DEFAULT_PROFILE.tools.confluence_fetch, { query });
      expect(outcome).toHaveProperty("args");
    });
  }
  // Issue 30: a question that only names the place leaves nothing to search for; no call, and the reason.
  for (const query of ["Confluence", "wiki", "wiki?"]) {
    it(`says why there is no call when nothing is left to search for: ${query}`, () => {
      expect(isApplicable("confluence_ref", { query })).toBe(true);
      const outcome = buildCall("confluence_fetch", DEFAULT_PROFILE.tools.confluence_fetch, { query });
      expect(outcome).toMatchObject({ reason: expect.stringContaining("nothing to search for") });
    });
  }
  it("prefers the page id, else a search query", () => {
    const rule = DEFAULT_PROFILE.tools.confluence_fetch;
    expect(buildCall("confluence_fetch", rule, { query: "page 123456 in confluence" })).toEqual({
      name: "confluence_fetch",
      args: { page_id: "123456" },
    });
    expect(buildCall("confluence_fetch", rule, { query: "search the wiki for the on-call runbook" })).toEqual(
      {
        name: "confluence_fetch",
        args: { query: "on-call runbook" },
      },
    );
  });
});

describe("regression: a shared default object mutated by later changes", () => {
  it("the default profile is frozen, and merging copies it", () => {
    expect(Object.isFrozen(DEFAULT_PROFILE.tools)).toBe(true);
    expect(() => {
      (DEFAULT_PROFILE.tools as Record<string, unknown>).x = {};
    }).toThrow(TypeError);
    const merged = mergeProfiles(DEFAULT_PROFILE, { tools: { x: { args: { q: "text" } } } });
    expect(merged.tools.x).toBeDefined();
    expect(DEFAULT_PROFILE.tools.x).toBeUndefined();
  });
});
