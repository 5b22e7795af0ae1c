import { describe, expect, it } from "vitest";
import cases from "./testdata/tool-patterns.json" with { type: "json" };
import { compileToolPattern, matchSorted } from "./tool-pattern.js";

interface PatternCase {
  note: string;
  pattern: string;
  type: "any" | "exact" | "glob";
  matches: string[] | "all";
}

const names = [...cases.names].sort();
const patterns = cases.patterns as PatternCase[];

describe("tool-name patterns (testdata/tool-patterns.json)", () => {
  it("the name list is sorted in code-point order, as matchSorted needs", () => {
    expect(cases.names).toEqual(names);
  });

  describe.each(patterns)("$note: $pattern", (row) => {
    const want = row.matches === "all" ? names : row.matches;

    it(`is classified as ${row.type}`, () => {
      expect(compileToolPattern(row.pattern).type).toBe(row.type);
    });

    it.each(names)("against %s", (name) => {
      expect(compileToolPattern(row.pattern).test(name)).toBe(want.includes(name));
    });

    it("matchSorted (prefix range) finds exactly the matching names", () => {
      expect(matchSorted(compileToolPattern(row.pattern), names)).toEqual(want);
    });
  });

  it.each(cases.errors)("refuses $note: $pattern", ({ pattern, error }) => {
    expect(() => compileToolPattern(pattern)).toThrow(error);
  });
});

describe("compileToolPattern", () => {
  it("keeps a glob's literal prefix, so a sorted list is searched from there", () => {
    expect(compileToolPattern("mcp__{github,jira}__*").prefix).toBe("mcp__");
    expect(compileToolPattern("!*_*").prefix).toBe("");
  });

  it("returns the same frozen pattern for the same entry", () => {
    const a = compileToolPattern("mcp__github__*");
    expect(compileToolPattern("mcp__github__*")).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("names the entry and picomatch's reason in a malformed-glob error", () => {
    expect(() => compileToolPattern("mcp__[x")).toThrow(/^malformed tool glob "mcp__\[x": Missing closing/);
  });
});
