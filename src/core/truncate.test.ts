import { describe, expect, it } from "vitest";
import { countLines } from "../utils/index.js";
import { truncateOutput, truncationIndicator } from "./truncate.js";

const lines = (n: number, width = 10) =>
  Array.from({ length: n }, (_, i) => `${i}`.padEnd(width, "x")).join("\n");

describe("truncateOutput", () => {
  it("leaves output within the limits untouched", () => {
    const text = lines(5);
    expect(truncateOutput(text, { maxChars: 1000, maxLines: 10 })).toEqual({
      text,
      truncated: false,
      omittedLines: 0,
      omittedChars: 0,
    });
  });

  it("truncates at the character limit and says how much was omitted", () => {
    const text = lines(100); // 100 lines, 1099 chars
    const out = truncateOutput(text, { maxChars: 300, maxLines: 1000 });
    expect(out.truncated).toBe(true);
    expect(out.text.length).toBeLessThanOrEqual(300);
    expect(out.text.endsWith(truncationIndicator(out.omittedLines, out.omittedChars))).toBe(true);
    expect(out.text.startsWith("0xxxxxxxxx\n1xxxxxxxxx\n")).toBe(true);
    // kept + omitted = everything
    const kept = out.text.slice(0, out.text.lastIndexOf("[... output truncated"));
    expect(kept.length + out.omittedChars).toBe(text.length);
  });

  it("truncates at the line limit with an indicator that counts lines and characters", () => {
    const text = lines(50);
    const out = truncateOutput(text, { maxChars: 100_000, maxLines: 10 });
    expect(countLines(out.text)).toBeLessThanOrEqual(10);
    expect(out.omittedLines).toBe(41);
    expect(out.text).toContain("[... output truncated: 41 lines (");
  });

  it("keeps head and tail in head-tail mode", () => {
    const text = lines(1000);
    const out = truncateOutput(text, { maxChars: 2000, maxLines: 21, mode: "head-tail" });
    expect(out.text.startsWith("0xxxxxxxxx")).toBe(true);
    expect(out.text.endsWith("999xxxxxxx")).toBe(true);
    expect(countLines(out.text)).toBeLessThanOrEqual(21);
    expect(out.text.length).toBeLessThanOrEqual(2000);
    expect(out.omittedLines).toBe(1000 - 20);
  });

  it("stays within both limits for many shapes of input, indicator included", () => {
    const samples = [
      "a".repeat(10_000),
      lines(3000, 1),
      lines(200, 300),
      "\n".repeat(5000),
      "😀".repeat(4000),
      `${"x".repeat(5000)}\n${"y".repeat(5000)}`,
    ];
    for (const text of samples) {
      for (const [maxChars, maxLines] of [
        [500, 5],
        [120, 1000],
        [5000, 3],
        [80, 2],
      ] as const) {
        for (const mode of ["head", "head-tail"] as const) {
          const out = truncateOutput(text, { maxChars, maxLines, mode });
          expect(out.text.length).toBeLessThanOrEqual(maxChars);
          expect(countLines(out.text)).toBeLessThanOrEqual(maxLines);
          expect(out.truncated).toBe(true);
          expect(out.text).toContain("output truncated");
          expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(out.text)).toBe(false);
        }
      }
    }
  });
});
