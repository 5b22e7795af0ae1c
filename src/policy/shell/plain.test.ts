import { beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../utils/index.js";
import { analyzeCommandSync, analyzeParsedSync } from "./analyze.js";
import { loadBashParser } from "./parser.js";
import { plainWords } from "./plain.js";

beforeAll(async () => {
  await loadBashParser();
});

describe("plainWords: which commands skip the grammar", () => {
  it.each([
    ["git status --short", ["git", "status", "--short"]],
    ["  ls   -la\tsrc/  ", undefined],
    ["ls -la\tsrc/ ", ["ls", "-la", "src/"]],
    ["rg --color=never -n foo src", ["rg", "--color=never", "-n", "foo", "src"]],
    ["npm run test:unit", ["npm", "run", "test:unit"]],
    ["find . -name x -exec rm {} +", undefined],
    ["echo $HOME", undefined],
    ["echo 'a b'", undefined],
    ["A=1 make", undefined],
    ["ls ~", undefined],
    ["ls *.ts", undefined],
    ["ls # comment", undefined],
    ["a && b", undefined],
    ["a; b", undefined],
    ["a > out", undefined],
    ["export PATH", undefined],
    ["unsetenv PATH", undefined],
    ["z+:a", undefined],
    ["x@y", undefined],
    ["cc z- ==", undefined],
    ["cc a==b", ["cc", "a==b"]],
    ["time make", undefined],
    ["if", undefined],
    ["coproc cat", undefined],
    ["", undefined],
    ["a\nb", undefined],
  ])("%j → %j", (text, words) => {
    expect(plainWords(text)).toEqual(words);
  });
});

// Words a model's commands are made of, plain and not, so generated commands cover both paths and their
// boundary (a plain command with one character that makes it need the parser).
const WORDS = [
  ...`git status --short ls -la src/ rm -rf / cat a.txt npm run test:unit bash -c sh env sudo xargs find . -exec
-delete sed -n 1e eval python3 node -e time export declare if then fi do done in for case coproc function unset
unsetenv local exec command builtin nohup timeout 5 nice --color=never a=b x@y 50% a,b +x .. ./x.sh /usr/bin/env
git-status - -- $HOME 'q' "d" a; && | > < 2>&1 $(id) ~ * {a,b} #c ! ( ) &`.split(/\s+/),
  "`id`",
  "\\x",
  "\t",
];

describe("the fast path gives the analysis the grammar gives", () => {
  it("agrees on 4,000 generated commands, over a third of them plain", () => {
    const random = seededRandom(20261126);
    // Two thirds drawn from the plain words only, so the fast path is exercised as much as the parser.
    const plainOnly = WORDS.filter((w) => plainWords(`x ${w}`) !== undefined);
    let fast = 0;
    for (let i = 0; i < 4000; i++) {
      const pool = i % 3 === 2 ? WORDS : plainOnly;
      const length = 1 + Math.floor(random() * 5);
      const text = Array.from({ length }, () => pool[Math.floor(random() * pool.length)]!).join(" ");
      if (plainWords(text)) fast++;
      expect(analyzeCommandSync(text), text).toEqual(analyzeParsedSync(text));
    }
    expect(fast).toBeGreaterThan(1500);
  });
});

describe("the fast path on random words of the characters it accepts", () => {
  it("agrees with the grammar on 10,000 commands", () => {
    const random = seededRandom(7);
    const chars = "abxyzAZ09_./:@%+,=-";
    const word = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 5) },
        () => chars[Math.floor(random() * chars.length)],
      ).join("");
    let fast = 0;
    for (let i = 0; i < 10_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 4) }, word).join(" ");
      if (plainWords(text)) fast++;
      expect(analyzeCommandSync(text), text).toEqual(analyzeParsedSync(text));
    }
    expect(fast).toBeGreaterThan(2_000);
  });
});
