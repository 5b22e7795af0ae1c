import { describe, expect, it } from "vitest";
import { escapeRegex } from "../utils/index.js";
import { findGlob, findPath, findSearchTerm } from "./extract-text.js";

describe("findPath", () => {
  const rows: Array<[string, string, string | undefined]> = [
    ["a relative path next to CJK text", "读一下 src/core/types.ts 的内容", "src/core/types.ts"],
    ["a bare file name with a known extension", "explain README.md", "README.md"],
    ["a dotted relative path", "open ./scripts/build.sh.", "./scripts/build.sh"],
    ["a known file name without extension", "what does the Makefile do?", "Makefile"],
    ["a backslash-separated path", "see repo\\app.py", "repo\\app.py"],
    ["a domain is not a file", "visit example.com today", undefined],
    ["a URL is not a path", "https://a.com/x/y.html", undefined],
    ["a library name is not a file", "upgrade Node.js", undefined],
    ["a version is not a file", "released v1.2.3", undefined],
    ["an abbreviation is not a file", "e.g. this one", undefined],
  ];
  for (const [note, text, want] of rows) {
    it(note, () => {
      expect(findPath(text)).toBe(want);
    });
  }
});

describe("findSearchTerm", () => {
  const rows: Array<[string, string, string | undefined]> = [
    ["a backtick span", "where is `retry_budget` set?", "retry_budget"],
    ["a double-quoted phrase", 'find "connection reset"', "connection reset"],
    ["CJK corner quotes", "搜索「超时重试」相关代码", "超时重试"],
    ["a camelCase identifier", "who calls parseConfig?", "parseConfig"],
    ["a PascalCase identifier", "where is ToolRegistry built", "ToolRegistry"],
    ["a call expression", "find uses of gate.execute()", "gate.execute"],
    ["a snake_case identifier", "where is max_depth read", "max_depth"],
    ["TODO markers", "list the TODO comments", "TODO"],
    ["plain prose yields nothing", "how does the cache work?", undefined],
  ];
  for (const [note, text, want] of rows) {
    it(note, () => {
      expect(findSearchTerm(text)).toBe(want);
    });
  }
  it("never picks an excluded tool name", () => {
    expect(findSearchTerm("use grep_search for loadConfig", ["grep_search"])).toBe("loadConfig");
  });
  it("escapes for a regex", () => {
    expect(escapeRegex("gate.execute()")).toBe("gate\\.execute\\(\\)");
  });
});

describe("findGlob", () => {
  const rows: Array<[string, string, string | undefined]> = [
    ["an explicit glob", "list *.test.ts files", "*.test.ts"],
    ["a deep glob", "files matching src/**/*.md please", "src/**/*.md"],
    ["a glob glued to CJK text", "列出所有*.md文件", "*.md"],
    ["an extension phrase", "find all .yaml files", "**/*.yaml"],
    ["a Chinese extension phrase", "所有 .py 文件", "**/*.py"],
    ["a question mark is not a glob", "what's in src/?", undefined],
    ["Markdown bold is not a glob", "**important** files", undefined],
  ];
  for (const [note, text, want] of rows) {
    it(note, () => {
      expect(findGlob(text)).toBe(want);
    });
  }
});
