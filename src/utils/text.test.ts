import { describe, expect, it } from "vitest";
import { countLines, escapeRegex, normalizeHost } from "./text.js";

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

describe("normalizeHost", () => {
  it.each([
    ["example.com", "example.com"],
    ["Example.COM", "example.com"],
    ["example.com.", "example.com"],
    ["example.com..", "example.com"],
    ["[::1]", "::1"],
    ["[FD00:EC2::254]", "fd00:ec2::254"],
    ["127.0.0.1", "127.0.0.1"],
  ])("%s → %s", (hostname, expected) => {
    expect(normalizeHost(hostname)).toBe(expected);
  });

  it("is what the URL parser's hostname becomes (brackets kept by WHATWG, dropped here)", () => {
    expect(normalizeHost(new URL("http://[::1]:8080/").hostname)).toBe("::1");
    expect(normalizeHost(new URL("http://LOCALHOST./").hostname)).toBe("localhost");
  });
});
