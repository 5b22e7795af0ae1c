/** The mark of an unfinished check: written whole, read by every process, gone when the person deletes it. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeIncomplete, incompleteMark, markIncomplete } from "./incomplete.js";

const state = mkdtempSync(join(tmpdir(), "tg-incomplete-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

it("refuses the marked root until its mark file is deleted, naming what to look at and how to go on", () => {
  expect(incompleteMark(state, ["/ws/a"])).toBeUndefined();
  markIncomplete(state, ["/ws/a"], ["/ws/a/x could not be looked through"]);
  const mark = incompleteMark(state, ["/ws/b", "/ws/a"]);
  expect(mark).toMatchObject({ root: "/ws/a", problems: ["/ws/a/x could not be looked through"] });
  expect(describeIncomplete(mark!)).toMatch(
    /commands in \/ws\/a are refused.*\/ws\/a\/x.*delete .*incomplete-/,
  );
  expect(incompleteMark(state, ["/ws/b"])).toBeUndefined();
  rmSync(mark!.file!);
  expect(incompleteMark(state, ["/ws/a"])).toBeUndefined();
});

it("keeps the mark in memory without a state folder", () => {
  markIncomplete(undefined, ["/ws/c"], ["p"]);
  expect(describeIncomplete(incompleteMark(undefined, ["/ws/c"])!)).toMatch(/start toolgate again/);
});
