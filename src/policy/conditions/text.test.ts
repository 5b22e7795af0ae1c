import { describe, expect, it } from "vitest";
import { compileGlob } from "../../utils/index.js";
import { textPlugin } from "./text.js";

/** Compiles `operator` with `operand` and tests the raw value as the engine would (prepare, then test). */
function holds(operator: string, operand: unknown, raw: unknown): unknown {
  const test = textPlugin.operators[operator]!(operand);
  return test(textPlugin.prepare(raw, { roots: [], args: {} }) as string | undefined, "allow");
}

describe("text plug-in operators", () => {
  const rows: [note: string, operator: string, operand: unknown, raw: unknown, want: boolean][] = [
    ["equals same string", "equals", "a b", "a b", true],
    ["equals differs by case", "equals", "abc", "ABC", false],
    ["equals number operand against number", "equals", 3, 3, true],
    ["equals number operand against its text", "equals", 3, "3", true],
    ["equals boolean", "equals", false, false, true],
    ["oneOf listed", "oneOf", ["x", "y"], "y", true],
    ["oneOf unlisted", "oneOf", ["x", "y"], "z", false],
    ["oneOf single scalar", "oneOf", "x", "x", true],
    ["prefix one of several", "prefix", ["npm test", "ls"], "ls -la", true],
    ["prefix is not contains", "prefix", "ls", "echo ls", false],
    ["contains any part", "contains", ["foo", "bar"], "xbarx", true],
    ["contains none", "contains", ["foo", "bar"], "baz", false],
    ["glob star within a segment", "glob", "*.md", "README.md", true],
    ["glob star does not cross /", "glob", "*.md", "docs/README.md", false],
    ["glob globstar crosses /", "glob", "**/*.md", "docs/a/README.md", true],
    ["glob dot files match", "glob", "*", ".env", true],
    ["glob braces", "glob", "*.{js,ts}", "a.ts", true],
    ["regex search, unanchored", "regex", "v[0-9]", "release v2", true],
    ["regex anchored fails", "regex", "^v[0-9]$", "v10", false],
    ["regex any of several", "regex", ["^a", "b$"], "cab", true],
    ["object values have no text form", "contains", "a", { a: "a" }, false],
    ["arrays have no text form", "equals", "a", ["a"], false],
    ["null has no text form", "equals", "null", null, false],
  ];
  for (const [note, operator, operand, raw, want] of rows) {
    it(note, () => {
      expect(holds(operator, operand, raw)).toBe(want);
    });
  }
});

describe("text plug-in operand errors", () => {
  const rows: [note: string, operator: string, operand: unknown, message: string][] = [
    ["prefix of a number", "prefix", 3, "expects a string or an array of strings, got number"],
    ["contains of a table", "contains", { a: 1 }, "expects a string or an array of strings, got table"],
    ["glob of an empty array", "glob", [], "expects at least one value, got []"],
    ["glob of mixed array", "glob", ["a", 1], "expects a string or an array of strings, got array"],
    ["equals of an array", "equals", ["a"], "expects a string, number or boolean, got array"],
    [
      "oneOf holding a table",
      "oneOf",
      ["a", {}],
      "expects an array of strings, numbers or booleans, got an array holding table",
    ],
    ["empty glob", "glob", "", "glob must not be empty"],
    [
      "unbalanced bracket",
      "glob",
      "[abc",
      'malformed glob "[abc": Missing closing: "]" - use "\\\\]" to match literal characters',
    ],
    [
      "unbalanced brace",
      "glob",
      "a{b",
      'malformed glob "a{b": Missing closing: "}" - use "\\\\}" to match literal characters',
    ],
    ["regex syntax", "regex", "(", 'invalid regex "(": Invalid regular expression: /(/: Unterminated group'],
  ];
  for (const [note, operator, operand, message] of rows) {
    it(note, () => {
      expect(() => textPlugin.operators[operator]!(operand)).toThrow(message);
    });
  }
});

describe("compiled globs are shared", () => {
  it("the same glob with other options is compiled apart", () => {
    expect(compileGlob("*.ENV")("x.env")).toBe(false);
    expect(compileGlob("*.ENV", { dot: true, nocase: true })("x.env")).toBe(true);
    expect(compileGlob("*.ENV")("x.env")).toBe(false);
  });

  it("a malformed glob is refused every time, not only on its first compile", () => {
    for (let i = 0; i < 2; i++) expect(() => compileGlob("[abc")).toThrow("malformed glob");
  });

  it("a shared regex keeps no state between tests", () => {
    const a = compileGlob("src/**");
    const b = compileGlob("src/**");
    for (let i = 0; i < 3; i++)
      expect([a("src/x.ts"), b("src/y.ts"), a("lib/x")]).toEqual([true, true, false]);
  });
});

describe("regexes prone to catastrophic backtracking are refused", () => {
  for (const source of ["(a+)+$", "(x+x+)+y", "^(\\w+\\s?)*$", "(.*a){12}"]) {
    it(source, () => {
      expect(() => textPlugin.operators["regex"]!(source)).toThrow(
        `regex ${JSON.stringify(source)} is prone to catastrophic backtracking (nested or overlapping quantifiers); simplify it`,
      );
    });
  }
  for (const source of ["^[a-z]+$", "^v[0-9]+\\.[0-9]+$", "(ab)*c"]) {
    it(`${source} is accepted`, () => {
      expect(() => textPlugin.operators["regex"]!(source)).not.toThrow();
    });
  }
});
