import { describe, expect, it } from "vitest";
import { mentionedTools } from "./mentions.js";

const NAMES = [
  "jira_fetch",
  "web_fetch",
  "confluence_fetch",
  "vector_search",
  "grep_search",
  "grep",
  "read_file",
];

describe("mentionedTools", () => {
  const rows: Array<[string, string, string[], string[]?]> = [
    ["a name glued to CJK text", "用jira_fetch查一下", ["jira_fetch"]],
    ["a name inside a longer identifier (prefix)", "myjira_fetch is a helper", []],
    ["a name inside a longer identifier (suffix)", "jira_fetcher is a helper", []],
    ["a name followed by -v2", "jira_fetch-v2 is different", []],
    ["a name before a dash and a space", "jira_fetch - then stop", ["jira_fetch"]],
    ["a name in backticks", "Call `web_fetch` now", ["web_fetch"]],
    ["grep inside grep_search is not grep", "use grep_search", ["grep_search"]],
    [
      "order of first mention, each once",
      "vector_search then jira_fetch then vector_search",
      ["vector_search", "jira_fetch"],
    ],
    ["don't use", "Don't use jira_fetch, use vector_search.", ["vector_search"], ["jira_fetch"]],
    ["curly apostrophe", "I don’t need jira_fetch.", [], ["jira_fetch"]],
    ["no need for", "No need for web_fetch here", [], ["web_fetch"]],
    ["without", "Answer without web_fetch", [], ["web_fetch"]],
    ["not", "vector_search, not jira_fetch", ["vector_search"], ["jira_fetch"]],
    [
      "a negated list after commas",
      "No need for jira_fetch, web_fetch, or confluence_fetch.",
      [],
      ["jira_fetch", "web_fetch", "confluence_fetch"],
    ],
    [
      "a negated clause then a positive clause",
      "No need for web_fetch, vector_search is enough",
      ["vector_search"],
      ["web_fetch"],
    ],
    [
      "negation after the mention",
      "jira_fetch is not needed; grep_search is.",
      ["grep_search"],
      ["jira_fetch"],
    ],
    ["isn't needed", "web_fetch isn't needed", [], ["web_fetch"]],
    ["instead of", "use vector_search instead of jira_fetch", ["vector_search"], ["jira_fetch"]],
    ["but resets the negation", "not jira_fetch but vector_search", ["vector_search"], ["jira_fetch"]],
    ["不需要", "不需要 jira_fetch", [], ["jira_fetch"]],
    ["无需调用", "无需调用 web_fetch，直接用 vector_search", ["vector_search"], ["web_fetch"]],
    ["不用 with a CJK comma", "不用jira_fetch，用vector_search", ["vector_search"], ["jira_fetch"]],
    ["不要 with a list joined by 和", "不要用 jira_fetch 和 web_fetch", [], ["jira_fetch", "web_fetch"]],
    ["别用", "别用web_fetch", [], ["web_fetch"]],
    ["没必要", "没必要调用confluence_fetch。", [], ["confluence_fetch"]],
    [
      "a negation after the mention in Chinese",
      "jira_fetch 不需要，vector_search 可以",
      ["vector_search"],
      ["jira_fetch"],
    ],
    ["negation does not cross a sentence", "Don't guess. Use jira_fetch.", ["jira_fetch"]],
    [
      "a negated mention, then a positive one later",
      "Not jira_fetch yet.\nActually jira_fetch is right.",
      ["jira_fetch"],
    ],
    ["a version number is not a sentence end", "v1.2 needs jira_fetch", ["jira_fetch"]],
  ];
  for (const [note, text, positive, negated = []] of rows) {
    it(note, () => {
      expect(mentionedTools(text, NAMES)).toEqual({ positive, negated });
    });
  }
});
