/**
 * `docs/policy-shell.md` shows the program table generated from the data: this test fails when the page is
 * stale. `UPDATE_DOCS=1 npx vitest run src/policy/shell/programs/table.test.ts` rewrites the section.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compilePrograms, programs } from "./index.js";
import { programTable } from "./table.js";

const page = new URL("../../../../docs/policy-shell.md", import.meta.url);
const START = "<!-- program-table:start (generated from src/policy/shell/programs/data) -->";
const END = "<!-- program-table:end -->";

describe("docs/policy-shell.md program table", () => {
  it("matches the data", () => {
    const text = readFileSync(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/policy-shell.md lacks the program-table markers").toBeGreaterThan(-1);
    const want = `${START}\n${programTable(programs())}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      writeFileSync(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });
});

describe("program knowledge loader", () => {
  it.each([
    [{ names: ["x"] }, "program knowledge x.json.about: must be a non-empty string"],
    [{ names: ["x"], about: "a", opts: {} }, 'program knowledge x.json: unknown key "opts"'],
    [
      { names: ["x"], about: "a", options: { "-o": { effect: "writes", reason: "r" } } },
      'program knowledge x.json.options["-o"].effect: must be one of write, delete, exec, network',
    ],
    [
      { names: ["x"], about: "a", options: { "-o": { effect: "write" } } },
      'program knowledge x.json.options["-o"].reason: must be a non-empty string',
    ],
    [
      { names: ["x"], about: "a", options: { o: {} } },
      'program knowledge x.json.options["o"]: names must start with - (comma-separated)',
    ],
    [
      { names: ["x"], about: "a", options: { "-o": { value: "sometimes" } } },
      'program knowledge x.json.options["-o"].value: must be none, required, optional, command or a word count',
    ],
    [
      { names: ["x"], about: "a", operands: [{ at: 0, label: "O", effect: "write", reason: "r" }] },
      'program knowledge x.json.operands[0].at: must be a position (1, 2, ...), "last" or "all"',
    ],
    [
      { names: ["x"], about: "a", script: "perl" },
      'program knowledge x.json.script: no script parser named "perl"',
    ],
  ])("refuses %j", (entry, message) => {
    expect(() => compilePrograms({ x: entry })).toThrow(message);
  });

  it("refuses a program named by two files", () => {
    expect(() =>
      compilePrograms({ a: { names: ["x"], about: "a" }, b: { names: ["x"], about: "b" } }),
    ).toThrow("program knowledge b.json.names: x is also in a.json");
  });
});
