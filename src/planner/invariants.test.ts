/**
 * Invariants over many generated replies (seeded, so every run is the same): the planner never throws,
 * guarded steps never leave the scope or the whitelist, and every guarded call has its required argument.
 */
import { describe, expect, it } from "vitest";
import { plan } from "./plan.js";
import type { RoutingPlan } from "./types.js";

const FRAGMENTS = [
  "<think>",
  "</think>",
  "jira_fetch",
  "web_fetch",
  "confluence_fetch",
  "vector_search",
  "grep",
  "read_file",
  "glob",
  "不需要",
  "don't use",
  "no need for",
  ", ",
  "。",
  "\n",
  "{",
  "}",
  "[",
  "]",
  '"name": "grep"',
  '"arguments": {',
  "<tool_call>",
  "</tool_call>",
  "[TOOL_CALLS]",
  "<|python_tag|>",
  "```json\n",
  "```",
  "PROJ-12",
  "UTF-8",
  "https://a.com/x",
  "总结",
  "src/a.ts",
  "*.md",
  "wiki",
  " ",
];
const QUERIES = [
  "PROJ-1 的状态",
  "总结https://example.com的内容",
  "wiki 上的流程",
  "find `parseConfig`",
  "随便",
  "",
];
const SCOPE = ["jira_fetch", "web_fetch", "confluence_fetch", "vector_search", "grep", "read_file", "glob"];
const REQUIRED: Record<string, string> = {
  jira_fetch: "issue_key",
  web_fetch: "url",
  vector_search: "query",
  grep: "pattern",
  read_file: "path",
  glob: "pattern",
};

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("planner invariants over generated replies", () => {
  it("holds for 1500 seeded replies", () => {
    const random = rng(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    for (let i = 0; i < 1500; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 25) }, () => pick(FRAGMENTS)).join("");
      const query = pick(QUERIES);
      const routing: RoutingPlan | undefined =
        random() < 0.3
          ? { suggested_tools: [pick(SCOPE)], sub_questions: random() < 0.5 ? [query] : [] }
          : undefined;
      const scope = SCOPE.filter(() => random() < 0.8);
      const result = plan({
        query,
        reply: { text },
        scope,
        round: Math.floor(random() * 2),
        ...(routing ? { routing } : {}),
      });
      if (result.method === "text" || result.method === "fallback" || result.method === "routing") {
        for (const call of result.calls) {
          expect(scope).toContain(call.name);
          if (routing?.suggested_tools?.length) expect(routing.suggested_tools).toContain(call.name);
          const required = REQUIRED[call.name];
          if (required) expect(typeof call.args[required]).toBe("string");
          if (call.name === "confluence_fetch") expect(Object.keys(call.args).length).toBe(1);
        }
      }
      if (result.method === "none") expect(result.calls).toEqual([]);
    }
  });
});
