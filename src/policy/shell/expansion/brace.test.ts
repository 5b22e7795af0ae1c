/**
 * Brace expansion against bash itself, with globbing off (`set -f`), so only braces and quote removal
 * count: hand-picked corners, then a seeded fuzz over brace, comma, sequence and quoting characters.
 */
import { describe, expect, it } from "vitest";
import { bashWords } from "../../../test-support/bash-words.js";
import { seededRandom } from "../../../utils/index.js";
import { braceExpand, NotReproduced } from "./brace.js";
import { lexWord, wordValue } from "./lex.js";

/** The words a source word becomes by brace expansion and quote removal, or the refusal. */
function ours(word: string): string[] | "refused" {
  try {
    const out: string[] = [];
    for (const raw of braceExpand(word)) {
      const lexed = lexWord(raw)!;
      if (lexed.chars.length > 0 || lexed.quotedPart) out.push(wordValue(lexed));
    }
    return out;
  } catch (error) {
    if (error instanceof NotReproduced) return "refused";
    throw error;
  }
}

const CORNERS = [
  "{a,b}",
  "x{a,b}y",
  "{a,b",
  "{{a,b}",
  "{a}{b,c}",
  "x{,}y",
  "{,}",
  "''{,}",
  "{'a,b'}",
  "{'a,b',c}",
  "{1..3}{x",
  "\\{a,b}",
  "{a\\,b,c}",
  "{a..c..2}",
  "{1..3..0}",
  "{0..3}",
  "{00..3}",
  "{3..00}",
  "{-05..5..3}",
  "{1..10..-3}",
  "{10..1..3}",
  "{}",
  "{},a}",
  "a{},b}",
  "{1..2}{a..b}",
  "{--output=F,HEAD}",
  "{1..5..}",
  "{1..5..+}",
  "{+1..3}",
  "{1..+3}",
  "{-1..-03}",
  "{a..e..-2}",
  "{1..x}{a,b}",
  '{"a,b",c}',
  '"{a,b}"',
  "{a,'}'}",
  "{a,b}}",
  "{{a,b},c}",
  "{a,{b,c}d}",
];

describe("brace expansion as bash does it", () => {
  it("hand-picked corners", () => {
    const want = bashWords(CORNERS, { cwd: "/", noGlob: true });
    expect(CORNERS.map(ours)).toEqual(want);
  });

  it("refuses letter sequences through punctuation and words beyond the budget", () => {
    expect(ours("{Z..a}")).toBe("refused");
    expect(() => braceExpand("{1..5000}")).toThrow("too many words");
    // The budget counts the work, partial products included: 16 words cost 30.
    expect(() => braceExpand("{a,b}{a,b}{a,b}{a,b}", 29)).toThrow("too many words");
    expect(braceExpand("{a,b}{a,b}{a,b}{a,b}", 30)).toHaveLength(16);
  });

  it.each([1, 2, 3, 4])("fuzz, seed %i: 1500 words", (seed) => {
    const rand = seededRandom(seed);
    const plain = ["{", "}", ",", ".", "..", "1", "0", "a", "b", "-", "Z", "{", "}", ",", "x", "2", "+", "9"];
    const pick = () => plain[Math.floor(rand() * plain.length)]!;
    const words: string[] = [];
    while (words.length < 1500) {
      let word = "";
      const parts = 1 + Math.floor(rand() * 10);
      for (let i = 0; i < parts; i++) {
        const r = rand();
        if (r < 0.08) word += `'${pick()}${pick()}'`;
        else if (r < 0.14) word += `"${pick()}"`;
        else if (r < 0.2) word += `\\${pick()[0]}`;
        else word += pick();
      }
      // A letter sequence through punctuation is refused on purpose (see brace.ts).
      if (ours(word) !== "refused") words.push(word);
    }
    const want = bashWords(words, { cwd: "/", noGlob: true });
    const mismatches = words
      .map((word, i) => ({ word, ours: ours(word), bash: want[i] }))
      .filter((m) => JSON.stringify(m.ours) !== JSON.stringify(m.bash));
    expect(mismatches).toEqual([]);
  });
});
