/**
 * docs/chat.md's "The context window" states figures and texts the code owns: the budget table (window,
 * reserve, prompt budget), the compaction target and the results' share, the reserve's cap, and the hint
 * that ends a cut result. They are read back from the page and compared with the code, so the page fails
 * this test when either changes alone.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { budgetFor, COMPACTION_TARGET, RESULTS_SHARE } from "./budget.js";
import { CUT_MARK, pagingHint } from "./shape.js";

const page = new URL("../../docs/chat.md", import.meta.url);

/** The section of the page about the context window. */
async function section(): Promise<string> {
  const text = await readFile(page, "utf8");
  const start = text.indexOf("\n## The context window\n");
  expect(start, "docs/chat.md lacks its context window section").toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** "4 096" or "30 720" as a number. */
const number = (s: string) => Number(s.replace(/[\s,]/g, ""));

describe("docs/chat.md on the context window", () => {
  it("shows the budget budgetFor gives for each window in its table", async () => {
    const rows = [...(await section()).matchAll(/^\| ([\d ]+) \| ([\d ]+) \| ([\d ]+) \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const [, window, reserve, prompt] of rows)
      expect({ window: number(window!), reserve: number(reserve!), prompt: number(prompt!) }).toEqual(
        budgetFor(number(window!)),
      );
  });

  it("names the reserve's cap, the compaction target and the results' share the code uses", async () => {
    const text = (await section()).replace(/\s+/g, " ");
    const cap = /a quarter of the window, at most ([\d ,]+?) \(/.exec(text);
    expect(cap, "the reserve's cap is not stated").not.toBeNull();
    expect(budgetFor(1_000_000).reserve).toBe(number(cap![1]!));
    expect(text).toContain(
      `the fixed part plus ${Math.round(COMPACTION_TARGET * 100)} % of the room it leaves`,
    );
    expect(RESULTS_SHARE).toBe(0.5);
    expect(text).toContain("A round's results together get half of the room the fixed part leaves");
  });

  it("ends its cut read with the hint a cut read_file result ends with", async () => {
    const block = /```text\n(line 1 of big\.txt[\s\S]*?)```/.exec(await section());
    expect(block, "the cut read example is missing").not.toBeNull();
    const lines = block![1]!.trimEnd().split("\n");
    const shown = Number(/^line (\d+) of big\.txt/.exec(lines.at(-3)!)?.[1]);
    const omitted = number(/output truncated: ([\d,]+) lines/.exec(lines.at(-2)!)?.[1] ?? "");
    expect(shown + omitted).toBe(3000);
    expect(lines.at(-1)).toBe(`${CUT_MARK}${pagingHint("read_file", { path: "big.txt" }, shown + 1)}]`);
  });
});
