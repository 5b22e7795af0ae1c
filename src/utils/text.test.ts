import { describe, expect, it } from "vitest";
import { countLines, escapeRegex } from "./text.js";

describe("countLines", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\nb\n", 2],
    ["\n", 1],
    ["\n\n", 2],
    ["a\r\nb\r\n", 2],
  ])("%j → %d", (text, expected) => {
    expect(countLines(text)).toBe(expected);
  });
});

describe("escapeRegex", () => {
  it.each(["a.b", "a*b+c?", "^start$", "(x|y)", "[set]", "{1,2}", "back\\slash", "mcp__x__*"])(
    "%s matches itself only",
    (literal) => {
      const re = new RegExp(`^${escapeRegex(literal)}$`);
      expect(re.test(literal)).toBe(true);
      expect(re.test(`${literal}x`)).toBe(false);
    },
  );
});
