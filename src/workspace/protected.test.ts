import { describe, expect, it } from "vitest";
import { gitignoreRules, isGitignorePath, seededRandom } from "../utils/index.js";
import { DEFAULT_PROTECTED_PATTERNS, DEFAULT_READ_ASK_PATTERNS, PathPatternSet } from "./protected.js";

/** What `matches` answered before it skipped paths: the matcher on the path and on its stripped form. */
function reference(patterns: readonly string[]): (relative: string) => boolean {
  const matcher = gitignoreRules({ ignorecase: true }).add([...patterns]);
  return (relative) => {
    if (relative === "" || relative === ".") return false;
    const stripped = relative
      .split("/")
      .map((part) => part.replace(/[. ]+$/, "") || part)
      .join("/");
    return matcher.ignores(relative) || matcher.ignores(stripped);
  };
}

/** Random paths made of the patterns' own pieces (in any case, with trailing dots) and other names. */
function randomPaths(random: () => number, patterns: readonly string[], count: number): string[] {
  const pieces = patterns.flatMap((p) => p.split(/[*/]+/)).filter((p) => p !== "" && !p.startsWith("!"));
  pieces.push("src", "a", "README.md", "x.ts", ".", "..", " ", "ENV", "key");
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    const depth = 1 + Math.floor(random() * 4);
    for (let d = 0; d < depth; d++) {
      let part = pick(pieces);
      if (random() < 0.3) part = part.toUpperCase();
      if (random() < 0.3) part = `${pick(pieces)}${part}`;
      if (random() < 0.2) part += pick([".", " ", "..", ". "]);
      if (random() < 0.1) part = `${part}.bak`;
      parts.push(part);
    }
    paths.push(parts.join("/"));
  }
  // Paths below a root never start with `./` or `../` (the matcher refuses those).
  return paths.filter((path) => isGitignorePath(path));
}

describe("PathPatternSet: the texts a covered path must hold", () => {
  const sets: [string, readonly string[]][] = [
    ["secrets", DEFAULT_READ_ASK_PATTERNS],
    ["protected", DEFAULT_PROTECTED_PATTERNS],
    ["escapes, classes, negations", ["\\*.pem", "key[0-9].txt", "!keep.env", "*.env", "# note", "a\\ b "]],
    ["a pattern without text skips nothing", ["*.pem", "?"]],
    // Found by review: the text inside a bracket expression stands for one of its characters.
    ["bracket expressions skip nothing", ["*.[ch]", "*.[pP][eE][mM]", "secret[[:digit:]]", "[!xyz]q"]],
    ["only negations", ["!*.pem"]],
  ];
  for (const [name, patterns] of sets) {
    it(`answers as the matcher alone does (${name})`, () => {
      const set = new PathPatternSet(patterns);
      const expected = reference(patterns);
      const random = seededRandom(patterns.length);
      for (const path of randomPaths(random, patterns, 4000)) {
        expect({ path, covered: set.matches(path) }).toEqual({ path, covered: expected(path) });
      }
    });
  }

  it("still finds the secrets and protected paths it covered", () => {
    const secrets = new PathPatternSet(DEFAULT_READ_ASK_PATTERNS);
    for (const path of [
      "app/.ENV",
      ".env.local",
      "certs/dev.PEM",
      "home/.ssh/config",
      "x/id_rsa.pub",
      ".env.",
    ]) {
      expect({ path, covered: secrets.matches(path) }).toEqual({ path, covered: true });
    }
    expect(secrets.matches("src/environment.ts")).toBe(false);
    // An escaped space is part of the name; trailing spaces are not.
    const spaced = new PathPatternSet(["a\\ b ", "\\#notes"]);
    expect(["a b", "x/A B", "#notes", "a  b"].map((path) => spaced.matches(path))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    const brackets = new PathPatternSet(["*.[ch]", "*.[pP][eE][mM]", "key[0-9]"]);
    expect(["src/main.c", "certs/dev.pem", "key7", "x.ts"].map((path) => brackets.matches(path))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    const protectedSet = new PathPatternSet(DEFAULT_PROTECTED_PATTERNS);
    expect(protectedSet.matches(".git/config")).toBe(true);
    expect(protectedSet.matches(".GIT./hooks/pre-commit")).toBe(true);
  });

  it("refuses a pattern holding a line break, which the matcher would read as several", () => {
    for (const pattern of ["a\nsecret", "#note\nsecret", "x\r\ny"]) {
      expect(() => new PathPatternSet([pattern])).toThrow(/invalid protected path pattern/);
    }
  });
});
