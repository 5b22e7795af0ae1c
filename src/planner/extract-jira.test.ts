import { describe, expect, it } from "vitest";
import { findJiraKey, findJiraKeys } from "./extract-jira.js";

describe("findJiraKeys", () => {
  const rows: Array<[string, string, string[]]> = [
    ["a key glued to CJK text after it", "PROJ-123的状态是什么？", ["PROJ-123"]],
    ["a key glued to CJK text before it", "查看PROJ-123", ["PROJ-123"]],
    ["a key with spaces around", "PROJ-123 的状态是什么？", ["PROJ-123"]],
    ["a key inside full-width brackets", "（OPS-42）", ["OPS-42"]],
    ["a key in a Jira browse URL", "https://acme.atlassian.net/browse/ABC-9", ["ABC-9"]],
    ["a key at the end of a sentence", "Look at PROJ-7.", ["PROJ-7"]],
    ["a key with digits and underscore in the project", "A1_B-77 failed", ["A1_B-77"]],
    ["several keys in order, deduplicated", "PROJ-1 and OPS-2 and PROJ-1", ["PROJ-1", "OPS-2"]],
    ["UTF-8", "the file is UTF-8 encoded", []],
    ["GPT-4", "GPT-4 says hi", []],
    ["GPT-4.5 (a version)", "compare GPT-4.5 with others", []],
    ["SHA-256", "hash it with SHA-256", []],
    ["ISO-8601", "dates in ISO-8601", []],
    ["COVID-19", "COVID-19 的影响", []],
    ["MP-3", "an MP-3 file", []],
    ["a one-letter project (X-1)", "the X-1 plane", []],
    ["a leading zero (PROJ-0123)", "PROJ-0123", []],
    ["the number 0", "PROJ-0", []],
    ["lower-case text", "proj-123", []],
    ["a key inside a longer word", "MYPROJ-123abc", []],
    ["a key after a letter", "xPROJ-12", []],
    ["a CVE id", "CVE-2024-1234", []],
    ["an RFC", "RFC-2616 says", []],
    ["a project key longer than 10 characters", "ABCDEFGHIJK-1", []],
  ];
  for (const [note, text, want] of rows) {
    it(note, () => {
      expect(findJiraKeys(text)).toEqual(want);
    });
  }

  it("counts only configured projects when project keys are given", () => {
    expect(findJiraKeys("PROJ-1, OPS-2, GPT-4", { projectKeys: ["OPS", "GPT"] })).toEqual(["OPS-2", "GPT-4"]);
  });

  it("treats an empty project list as no restriction", () => {
    expect(findJiraKey("PROJ-5", { projectKeys: [] })).toBe("PROJ-5");
  });
});
