/**
 * Results shaped to the window: fair parts, the pipeline's own truncation and indicator, a hint that says
 * how to see the rest (by tool, from paging-hints.json), nothing lengthened, old results shortened alike.
 */
import { describe, expect, it } from "vitest";
import { truncateOutput } from "../core/index.js";
import HINTS from "./paging-hints.json" with { type: "json" };
import { allot, CUT_MARK, cutResult, isCut, pagingHint, shapeResults, shortenResult } from "./shape.js";

const lines = (n: number, width = 40) =>
  Array.from({ length: n }, (_, i) => `line ${i + 1} ${"x".repeat(width)}`).join("\n");

describe("shaping a round's results", () => {
  it("keeps short results whole and splits the rest among the long ones", () => {
    expect(allot([100, 5000, 9000], 3000)).toEqual([100, 1450, 1450]);
    expect(allot([10, 20], 1000)).toEqual([10, 20]);
    expect(allot([5000], 0)).toEqual([0]);
  });

  it("leaves results within their share untouched", () => {
    const results = [{ name: "ls", args: {}, content: "a\nb\n" }];
    expect(shapeResults(results, 1000)).toEqual(["a\nb\n"]);
  });

  it("cuts a read with the pipeline's indicator and the line to read on from", () => {
    const content = lines(3000);
    const [cut] = shapeResults([{ name: "read_file", args: { path: "big.txt" }, content }], 2000);
    expect(cut!.length).toBeLessThanOrEqual(2000);
    const shown = cut!.split("\n").filter((l) => l.startsWith("line ")).length;
    expect(cut).toMatch(/^line 1 x+\n/);
    expect(cut).toContain(`[... output truncated: ${(3000 - shown).toLocaleString("en-US")} lines (`);
    expect(
      cut!.endsWith(
        `${CUT_MARK}call read_file again with startLine ${shown + 1} and an endLine to read on, or with tail for the last lines]`,
      ),
    ).toBe(true);
    // The pipeline's own truncation: whole lines from the start, then its indicator, then the hint.
    const [head, indicator] = cut!.split("\n[... output truncated");
    expect(content.startsWith(head!)).toBe(true);
    expect(`[... output truncated${indicator}`).toMatch(
      /^\[\.\.\. output truncated: [\d,]+ lines \([\d,]+ characters\) omitted \.\.\.\]\n\[toolgate: /,
    );
    expect(truncateOutput(content, { maxChars: cut!.length, maxLines: 1e9 }).text.startsWith(head!)).toBe(
      true,
    );
  });

  it("counts a read's lines from its startLine, and tells a tail read to ask for less", () => {
    const ranged = cutResult(
      { name: "read_file", args: { path: "a", startLine: 501 }, content: lines(500) },
      800,
    );
    const shown = ranged.split("\n").filter((l) => l.startsWith("line ")).length;
    expect(ranged).toContain(`startLine ${501 + shown} and an endLine`);
    const tail = cutResult({ name: "read_file", args: { path: "a", tail: 500 }, content: lines(500) }, 800);
    expect(tail).toContain(
      `${CUT_MARK}call read_file again with a smaller tail, or with startLine and endLine]`,
    );
  });

  it("keeps the start and the end of a command's output, and names narrower searches", () => {
    const shell = cutResult({ name: "shell", args: {}, content: lines(1000), mode: "head-tail" }, 1200);
    expect(shell).toMatch(/^line 1 /);
    expect(shell).toContain("line 1000 ");
    expect(shell).toContain("pipe it through head, tail or grep");
    expect(pagingHint("grep", {}, 1)).toBe(HINTS.grep);
    expect(pagingHint("mcp__gh__search", {}, 1)).toBe(
      "call mcp__gh__search again with narrower arguments to see the rest",
    );
  });

  it("never goes below a readable minimum, and marks what it cut", () => {
    const [tiny] = shapeResults([{ name: "glob", args: {}, content: lines(200) }], 10);
    expect(tiny!.length).toBeLessThanOrEqual(400);
    expect(isCut(tiny!)).toBe(true);
  });

  it("shortens an old result to its start and says how to get the rest", () => {
    const short = shortenResult({ name: "grep", args: {}, content: lines(300) }, 400);
    expect(short.length).toBeLessThanOrEqual(400);
    expect(short).toMatch(/\[toolgate: shortened to save context; call grep again if you need the rest\]$/);
    expect(isCut(short)).toBe(true);
    expect(isCut("plain")).toBe(false);
  });
});
