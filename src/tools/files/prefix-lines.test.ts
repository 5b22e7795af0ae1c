import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { seededRandom } from "../../utils/index.js";
import { joinShownParts, joinShownPartsWithStrings, type ShownPart } from "./prefix-lines.js";

/** Bytes a line may hold, chosen to meet the module's edge cases: CR, line feeds, multi-byte and bad UTF-8. */
const PIECES = ["a", "return x;", "\r", "é", "😀", "\xff", "\t", " ", "🙂🙂", "\u2028"].map((p) =>
  p === "\xff" ? Buffer.from([0xff]) : Buffer.from(p),
);

function randomLines(random: () => number, count: number, endsWithNewline: boolean): Buffer {
  const lines: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    // Lengths around the 16-byte step, and longer.
    const pieces = Math.floor(random() * (random() < 0.3 ? 40 : 6));
    const line = [Buffer.from(`${i + 1}: `)];
    for (let k = 0; k < pieces; k++) line.push(PIECES[Math.floor(random() * PIECES.length)]!);
    if (random() < 0.3) line.push(Buffer.from("\r"));
    lines.push(Buffer.concat(line));
  }
  const text = Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")]));
  return endsWithNewline || text.length === 0 ? text : text.subarray(0, -1);
}

describe("joinShownParts", () => {
  it("holds prefix-lines.wat, assembled", async () => {
    const wabt = await wabtInit();
    const source = await readFile(new URL("./prefix-lines.wat", import.meta.url), "utf8");
    const { buffer } = wabt
      .parseWat("prefix-lines.wat", source, { simd: true, bulk_memory: true })
      .toBinary({});
    const embedded = (await readFile(new URL("./prefix-lines.ts", import.meta.url), "utf8")).match(
      /"(AGFzbQ[A-Za-z0-9+/=]+)"/,
    )?.[1];
    expect(embedded).toBe(Buffer.from(buffer).toString("base64"));
  });

  it("prefixes each line, drops the CR before its end and cuts long texts", () => {
    const parts: ShownPart[] = [
      { prefix: "src/a.ts:", lines: Buffer.from("3: return 1;\r\n10: return 2;\n"), count: 2 },
      { prefix: "long.js:", lines: Buffer.from("1: abcdefghij\n2: abcdefgh\n"), count: 2 },
      { prefix: "b c.md:", lines: Buffer.from("7: é\r"), count: 1 },
      { prefix: "empty:", lines: Buffer.alloc(0), count: 0 },
      // The cut never leaves half a surrogate pair.
      { prefix: "emoji:", lines: Buffer.from("4: abcdefgh😀z\n"), count: 1 },
    ];
    const expected =
      "src/a.ts:3: return 1;\nsrc/a.ts:10: return 2;\nlong.js:1: abcdefghi…\nlong.js:2: abcdefgh\n" +
      "b c.md:7: é\nemoji:4: abcdefgh…\n";
    expect(joinShownParts(parts, 9)).toBe(expected);
    expect(joinShownPartsWithStrings(parts, 9)).toBe(expected);
  });

  it("gives the text the string version gives, for random lines, prefixes, alignments and cuts", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 300; round++) {
      const parts: ShownPart[] = [];
      const partCount = 1 + Math.floor(random() * 8);
      for (let p = 0; p < partCount; p++) {
        const count = Math.floor(random() * 12);
        const lines = randomLines(random, count, random() < 0.8);
        // A view at an odd offset inside a larger buffer, as ripgrep's chunks are.
        const offset = Math.floor(random() * 7);
        const host = Buffer.alloc(lines.length + offset + 3, 10);
        lines.copy(host, offset);
        parts.push({
          prefix: `${"dir/".repeat(Math.floor(random() * 4))}f${p}😀.ts:`,
          lines: host.subarray(offset, offset + lines.length),
          count,
        });
      }
      // Some rounds cut many lines (and bad bytes grow to 3-byte U+FFFDs in the string form).
      const max = random() < 0.5 ? 500 : 1 + Math.floor(random() * 30);
      expect(joinShownParts(parts, max)).toBe(joinShownPartsWithStrings(parts, max));
    }
  });

  it("lays out a large search in one call, and a part of bad bytes larger in its string form", () => {
    const lines = Buffer.from(
      Array.from({ length: 5_000 }, (_, i) => `${i + 1}: return value${i};\n`).join(""),
    );
    const parts: ShownPart[] = Array.from({ length: 20 }, (_, i) => ({
      prefix: `src/module${i}.ts:`,
      lines,
      count: 5_000,
    }));
    const bad = Buffer.concat([Buffer.from("1: "), Buffer.alloc(200_000, 0xff), Buffer.from("\n")]);
    parts.push({ prefix: "bad.bin:", lines: bad, count: 1 }, { prefix: "z.ts:", lines, count: 5_000 });
    const text = joinShownParts(parts, 500);
    expect(text).toBe(joinShownPartsWithStrings(parts, 500));
    expect(text.startsWith("src/module0.ts:1: return value0;\nsrc/module0.ts:2: ")).toBe(true);
    expect(text.endsWith("z.ts:5000: return value4999;\n")).toBe(true);
  });
});
