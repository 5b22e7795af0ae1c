import { describe, expect, it } from "vitest";
import { joinShownParts, type ShownPart } from "./prefix-lines.js";

describe("joinShownParts", () => {
  it("prefixes each line, drops the CR before its end and cuts long texts", () => {
    const parts: ShownPart[] = [
      { prefix: "src/a.ts:", lines: Buffer.from("3: return 1;\r\n10: return 2;\n"), count: 2 },
      { prefix: "long.js:", lines: Buffer.from("1: abcdefghij\n2: abcdefgh\n"), count: 2 },
      { prefix: "b c.md:", lines: Buffer.from("7: é\r"), count: 1 },
      { prefix: "empty:", lines: Buffer.alloc(0), count: 0 },
      // The cut never leaves half a surrogate pair.
      { prefix: "emoji:", lines: Buffer.from("4: abcdefgh😀z\n"), count: 1 },
    ];
    expect(joinShownParts(parts, 9)).toBe(
      "src/a.ts:3: return 1;\nsrc/a.ts:10: return 2;\nlong.js:1: abcdefghi…\nlong.js:2: abcdefgh\n" +
        "b c.md:7: é\nemoji:4: abcdefgh…\n",
    );
  });

  it("reads lines from a view inside a larger buffer, as ripgrep's chunks are", () => {
    const host = Buffer.from("xx5: one\n6: two\nyy");
    const parts: ShownPart[] = [{ prefix: "f.ts:", lines: host.subarray(2, 16), count: 2 }];
    expect(joinShownParts(parts, 500)).toBe("f.ts:5: one\nf.ts:6: two\n");
  });

  it("shows a byte that is not UTF-8 as U+FFFD and counts the cut in UTF-16 units", () => {
    const bad = Buffer.concat([Buffer.from("1: a"), Buffer.from([0xff]), Buffer.from("b\n2: 🙂🙂🙂\n")]);
    expect(joinShownParts([{ prefix: "bin:", lines: bad, count: 2 }], 4)).toBe(
      "bin:1: a\ufffdb\nbin:2: 🙂🙂…\n",
    );
  });

  it("lays out a large search", () => {
    const lines = Buffer.from(
      Array.from({ length: 5_000 }, (_, i) => `${i + 1}: return value${i};\n`).join(""),
    );
    const parts: ShownPart[] = Array.from({ length: 20 }, (_, i) => ({
      prefix: `src/module${i}.ts:`,
      lines,
      count: 5_000,
    }));
    const text = joinShownParts(parts, 500);
    expect(text.split("\n")).toHaveLength(100_001);
    expect(text.startsWith("src/module0.ts:1: return value0;\nsrc/module0.ts:2: ")).toBe(true);
    expect(text.endsWith("src/module19.ts:5000: return value4999;\n")).toBe(true);
  });
});
