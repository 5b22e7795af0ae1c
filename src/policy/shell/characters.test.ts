import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./analyze.js";
import { type CharacterRange, CONTROL_CHARACTERS, characterClass, UNUSUAL_CHARACTERS } from "./characters.js";

const DATA = JSON.parse(readFileSync(new URL("./characters.json", import.meta.url), "utf8")) as {
  control: CharacterRange[];
  unusual: CharacterRange[];
};

const tables = [
  ["control", DATA.control, CONTROL_CHARACTERS, "control character"],
  ["unusual", DATA.unusual, UNUSUAL_CHARACTERS, "unusual character"],
] as const;

describe("characters.json", () => {
  for (const [name, ranges, re, reason] of tables) {
    const listed = (code: number) =>
      ranges.some((r) => code >= Number.parseInt(r.from, 16) && code <= Number.parseInt(r.to, 16));
    it.each(ranges.map((r) => [r.from, r.to, r.why] as const))(
      `${name}: U+%s..U+%s (%s) is matched at both ends, and its neighbours only when listed`,
      (from, to) => {
        for (const code of [Number.parseInt(from, 16), Number.parseInt(to, 16)])
          expect(re.test(String.fromCodePoint(code))).toBe(true);
        for (const code of [Number.parseInt(from, 16) - 1, Number.parseInt(to, 16) + 1])
          if (code >= 0) expect(re.test(String.fromCodePoint(code))).toBe(listed(code));
      },
    );
    it(`${name}: a command holding the first character of each range is flagged "${reason}"`, async () => {
      for (const r of ranges) {
        const analysis = await analyzeCommand(`ls${String.fromCodePoint(Number.parseInt(r.from, 16))}-la`);
        expect(analysis.unsafe, r.from).toContain(reason);
      }
    });
  }

  it("leaves tab, newline and ordinary text alone", () => {
    for (const text of ["\t", "\n", "ls -la", "é", "日本"]) {
      expect(CONTROL_CHARACTERS.test(text)).toBe(false);
      expect(UNUSUAL_CHARACTERS.test(text)).toBe(false);
    }
  });

  it.each([
    [[], "control must be a non-empty list"],
    [[{ from: "00a0", to: "00A0", why: "x" }], "control[0]: from and to must be upper-case hex"],
    [[{ from: "0041", to: "0040", why: "x" }], "control[0]: not a range"],
    [[{ from: "0041", to: "0041" }], "control[0]: say why"],
  ])("refuses a malformed table at load (%#)", (ranges, message) => {
    expect(() => characterClass(ranges, "control")).toThrow(message);
  });
});
