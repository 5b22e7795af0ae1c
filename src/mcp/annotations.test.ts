/**
 * Advertised annotations are the stricter of a tool's own and the policy's verdict, table-driven from
 * testdata/annotation-cases.json; the strictness table's loader refuses malformed tables; and the verdict
 * `toolgate mcp` computes from a real policy (the rules naming a tool without conditions, else the default).
 */
import { describe, expect, it } from "vitest";
import { policyVerdict } from "../cli/commands/mcp.js";
import { defineTool, okResult } from "../core/index.js";
import { parsePolicy } from "../policy/index.js";
import TABLE from "./annotation-strictness.json" with { type: "json" };
import { type Hints, loadStrictnessTable, type PolicyVerdict, stricterAnnotations } from "./annotations.js";
import CASES from "./testdata/annotation-cases.json" with { type: "json" };

interface Case {
  name: string;
  own: (Hints & Record<string, unknown>) | null;
  verdict: PolicyVerdict | null;
  expected: Record<string, unknown> | null;
}

describe("stricterAnnotations", () => {
  for (const c of CASES.cases as Case[]) {
    it(c.name, () => {
      const out = stricterAnnotations(c.own ?? undefined, c.verdict ?? undefined);
      expect(out ?? null).toEqual(c.expected);
      // Never looser, whatever the case: a verdict other than allow never leaves a read-only or
      // non-destructive claim standing.
      if (c.verdict && c.verdict.decision !== "allow") {
        expect(out?.readOnlyHint).toBe(false);
        expect(out?.destructiveHint).toBe(true);
      }
    });
  }
});

describe("the strictness table", () => {
  it("loads the shipped table", () => {
    expect(loadStrictnessTable(TABLE).hints.readOnlyHint).toEqual({ stricter: false, absent: false });
  });
  for (const bad of CASES.badTables) {
    it(`refuses a table with ${bad.name}`, () => {
      expect(() => loadStrictnessTable(bad.table)).toThrow(bad.error);
    });
  }
});

describe("policyVerdict (what `toolgate mcp` advertises by)", () => {
  const tool = (name: string, kind: "read" | "edit" | "other") =>
    defineTool({
      name,
      description: name,
      parameters: { type: "object", properties: { path: { type: "string" } } },
      kind,
      risk: "low",
      run: async () => okResult(""),
    });
  const policy = parsePolicy(
    `default = "ask"
[[rules]]
tool = "*"
kind = ["read"]
decision = "allow"
[[rules]]
tool = "burn"
decision = "deny"
[[rules]]
tool = "peek"
decision = "allow"
when.path = { glob = "public/**" }
`,
    "inline",
  );

  it.each([
    ["look", "read", "allow"],
    ["burn", "edit", "deny"],
    // A conditional allow does not make the tool allowed as such: its calls outside the condition ask.
    ["peek", "other", "ask"],
    ["echo", "other", "ask"],
  ] as const)("%s (%s) → %s", async (name, kind, decision) => {
    expect(policyVerdict(await policy, tool(name, kind)).decision).toBe(decision);
  });
});
