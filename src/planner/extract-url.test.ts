import { describe, expect, it } from "vitest";
import { findConfluenceRef, findUrls } from "./extract-url.js";

describe("findUrls", () => {
  const rows: Array<[string, string, string[]]> = [
    ["a URL glued to CJK text", "总结https://example.com的内容", ["https://example.com"]],
    ["a URL with spaces around CJK", "总结 https://example.com 的内容", ["https://example.com"]],
    ["a URL in parentheses with a full stop", "(see https://a.com/x).", ["https://a.com/x"]],
    [
      "balanced parentheses inside a URL",
      "https://en.wikipedia.org/wiki/Foo_(bar)",
      ["https://en.wikipedia.org/wiki/Foo_(bar)"],
    ],
    ["a Markdown link", "[docs](https://a.com/docs)", ["https://a.com/docs"]],
    ["an angle-bracketed URL", "<https://a.com/x>", ["https://a.com/x"]],
    ["a quoted URL", 'open "https://a.com/q?x=1&y=2"', ["https://a.com/q?x=1&y=2"]],
    ["single quotes", "fetch 'https://a.com/p'", ["https://a.com/p"]],
    [
      "trailing comma and question mark",
      "is https://a.com/x, or https://b.com?",
      ["https://a.com/x", "https://b.com"],
    ],
    ["full-width punctuation", "看看https://a.com/x。然后", ["https://a.com/x"]],
    ["full-width comma", "链接：https://a.com/x，谢谢", ["https://a.com/x"]],
    ["an upper-case scheme", "HTTPS://A.COM/X", ["HTTPS://A.COM/X"]],
    ["an IPv6 host", "http://[::1]:8080/status", ["http://[::1]:8080/status"]],
    ["duplicates", "https://a.com https://a.com", ["https://a.com"]],
    ["no scheme", "example.com/page", []],
    ["an ftp URL", "ftp://a.com/file", []],
    ["a scheme without host", "https:// nothing", []],
  ];
  for (const [note, text, want] of rows) {
    it(note, () => {
      expect(findUrls(text)).toEqual(want);
    });
  }
});

describe("findConfluenceRef", () => {
  it("finds the word confluence next to CJK text", () => {
    expect(findConfluenceRef("在Confluence上找部署文档")).toEqual({ mentioned: true });
  });
  it("finds the word wiki", () => {
    expect(findConfluenceRef("check the team wiki for the runbook")).toEqual({ mentioned: true });
  });
  it("does not take wikipedia for a wiki", () => {
    expect(findConfluenceRef("what does wikipedia say about raft?")).toBeUndefined();
  });
  it("does not take a Wikipedia URL for a wiki page", () => {
    expect(findConfluenceRef("summarize https://en.wikipedia.org/wiki/Raft_(algorithm)")).toBeUndefined();
  });
  it("reads the page id from a Cloud page URL", () => {
    expect(
      findConfluenceRef("see https://acme.atlassian.net/wiki/spaces/ENG/pages/98765/Deploy+Guide"),
    ).toEqual({
      mentioned: true,
      pageId: "98765",
    });
  });
  it("reads the page id from a viewpage.action URL", () => {
    expect(findConfluenceRef("https://confluence.acme.com/pages/viewpage.action?pageId=123456")?.pageId).toBe(
      "123456",
    );
  });
  it("reads the title from a /display/ URL", () => {
    expect(findConfluenceRef("https://confluence.acme.com/display/ENG/Release+Process")).toEqual({
      mentioned: true,
      title: "Release Process",
    });
  });
  it("reads an explicit page id", () => {
    expect(findConfluenceRef("page 123456 has the answer")?.pageId).toBe("123456");
    expect(findConfluenceRef("pageId: 98765")?.pageId).toBe("98765");
    expect(findConfluenceRef("页面123456里写了什么")?.pageId).toBe("123456");
  });
  it("ignores a bare number", () => {
    expect(findConfluenceRef("2024 年的 123456 个用户")).toBeUndefined();
  });
});
