/**
 * The reply corpus (testdata/corpus.json): realistic model replies, each a named case with the expected
 * method and calls. Add a case by appending to the file.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { plan } from "./plan.js";
import type { ModelReply, PlanMethod, PlannedCall, RoutingPlan } from "./types.js";

interface CorpusCase {
  note: string;
  query: string;
  reply: string | ModelReply;
  routing?: RoutingPlan;
  scope?: string[];
  round?: number;
  hasContext?: boolean;
  jiraProjectKeys?: string[];
  want: { method: PlanMethod; calls: PlannedCall[] };
}

const DEFAULT_SCOPE = [
  "grep_search",
  "vector_search",
  "hybrid_search",
  "local_file_qa",
  "read_file",
  "graph_related",
  "jira_fetch",
  "web_fetch",
  "confluence_fetch",
  "grep",
  "glob",
];

const corpus = JSON.parse(
  readFileSync(new URL("./testdata/corpus.json", import.meta.url), "utf8"),
) as CorpusCase[];

describe("planner corpus", () => {
  it("holds at least 40 cases with unique notes", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(new Set(corpus.map((c) => c.note)).size).toBe(corpus.length);
  });

  for (const c of corpus) {
    it(c.note, () => {
      const result = plan({
        query: c.query,
        reply: typeof c.reply === "string" ? { text: c.reply } : c.reply,
        scope: c.scope ?? DEFAULT_SCOPE,
        ...(c.routing ? { routing: c.routing } : {}),
        ...(c.round !== undefined ? { round: c.round } : {}),
        ...(c.hasContext !== undefined ? { hasContext: c.hasContext } : {}),
        ...(c.jiraProjectKeys ? { jiraProjectKeys: c.jiraProjectKeys } : {}),
      });
      expect({ method: result.method, calls: result.calls }, result.reason).toEqual(c.want);
    });
  }
});
