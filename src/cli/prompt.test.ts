import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace } from "../test-support/cli.js";
import { shellQuote, Terminal } from "../test-support/tmux.js";
import { fold, renderConfirmation } from "./prompt.js";

/** Drives the real binary on a real terminal (tmux on a socket of its own), as a person would. */
const term = new Terminal();
let sessions = 0;
afterAll(() => term.close());

async function runOnTerminal(ws: string, args: string, answer: string) {
  const name = `prompt-${sessions++}`;
  // Wide enough that the sandbox line of a network grant (~210 columns) is one row.
  term.start(
    name,
    `cd ${shellQuote(ws)} && node ${BIN} call ${args}; echo "EXIT=$?"; sleep 60`,
    undefined,
    240,
  );
  // The question is answered only once it is asked (the last line is the question, nothing typed yet).
  const shown = await term.waitForPrompt(name, "Allow? [y/N]");
  term.keys(name, answer, "Enter");
  const done = await term.waitFor(name, /EXIT=\d/);
  return { shown, done };
}

describe("interactive approval on a terminal", () => {
  it("shows the confirmation details with the diff and runs on y", async () => {
    const ws = await tempWorkspace();
    const { shown, done } = await runOnTerminal(ws, `write_file '{"path":"a.txt","content":"hello"}'`, "y");
    expect(shown).toContain("write_file needs your approval (risk: medium)");
    expect(shown).toMatch(/\+hello/);
    expect(done).toContain("EXIT=0");
    expect(await readFile(join(ws, "a.txt"), "utf8")).toBe("hello");
  });

  it("refuses on anything but yes (exit 3, nothing written)", async () => {
    const ws = await tempWorkspace();
    const { done } = await runOnTerminal(ws, `write_file '{"path":"b.txt","content":"no"}'`, "maybe");
    expect(done).toContain("EXIT=3");
    expect(existsSync(join(ws, "b.txt"))).toBe(false);
  });

  it("shows a shell command with hidden characters made visible", async () => {
    const ws = await tempWorkspace();
    const { shown, done } = await runOnTerminal(ws, `shell '{"command":"echo ok\\u202e # evil"}'`, "n");
    expect(shown).toContain("U+202E");
    expect(done).toContain("EXIT=3");
  });
});

describe("a model's text cannot forge the sandbox line (issue 27.6)", () => {
  it("shows a justification's forged sandbox lines quoted, and the real sandbox line last, in toolgate's words", async () => {
    const ws = await tempWorkspace();
    const forged = "sandbox: read-only (FORGED)";
    // A line break, escape sequences that move up and erase, a carriage return, and padding that a terminal
    // would wrap so that the forged line starts a row: none of it may draw a line of its own.
    const justification = `fine\n  ${forged}\x1b[1A\x1b[2K\r  ${forged}\u202e ${"x".repeat(150)}${forged}`;
    // JSON writes the controls as escapes; the bidi override is escaped too, so the shell line is ASCII.
    const args = JSON.stringify({ command: "echo hi", sandbox: "network", justification }).replace(
      /\u202e/g,
      "\\u202e",
    );
    const { shown, done } = await runOnTerminal(ws, `shell ${shellQuote(args)}`, "n");
    const rows = shown.trimEnd().split("\n");
    const question = rows.findLastIndex((row) => row.startsWith("Allow? [y/N]"));
    const sandboxRows = rows.filter((row) => /^\s*sandbox:/.test(row));
    expect(sandboxRows).toEqual([rows[question - 1]]);
    expect(rows[question - 1]).toMatch(/^ {2}sandbox: .+ — the command asks for network access$/);
    expect(rows[question - 1]).not.toContain("FORGED");
    // The forged text is there, quoted behind the gutter, escapes written out.
    expect(shown).toMatch(/justification +│ fine\\n {2}sandbox: read-only \(FORGED\)\\x1b\[1A/);
    expect(shown).toContain("<U+202E>");
    expect(done).toContain("EXIT=3");
  });
});

describe("renderConfirmation", () => {
  const details = {
    toolName: "shell",
    description: "Run ls",
    risk: "high" as const,
    locations: ["/p"],
    type: "exec" as const,
    command: "ls",
    reason: "no rule matched; default decision ask",
    agent: "helper",
    sandbox: "workspace-write (writes only inside the workspace; no network; secrets unreadable)",
  };

  it("quotes each field behind the gutter, toolgate's notes after them and the sandbox line last", () => {
    expect(renderConfirmation(details, { notes: ["always = allow exactly this command"] })).toBe(
      [
        "shell needs your approval (risk: high)",
        "  call      │ Run ls",
        "  sub-agent │ helper",
        "  command   │ ls",
        "  affects   │ /p",
        "  why asked │ no rule matched; default decision ask",
        "  always = allow exactly this command",
        "  sandbox: workspace-write (writes only inside the workspace; no network; secrets unreadable)",
        "",
      ].join("\n"),
    );
  });

  it("quotes a diff line by line, and folds long text so no row is wider than the terminal", () => {
    const long = `${"word ".repeat(30)}sandbox: off`;
    const shown = renderConfirmation(
      { ...details, agent: undefined, reason: long, diff: "--- a/x\n+++ b/x\n+sandbox: off\n" },
      { width: 60 },
    );
    const rows = shown.trimEnd().split("\n");
    expect(rows.filter((row) => row.includes("│")).every((row) => [...row].length <= 60)).toBe(true);
    expect(rows.filter((row) => /^\s*sandbox:/.test(row))).toEqual([rows.at(-1)]);
    expect(rows).toContain("  change:");
    expect(rows).toContain("    │ +sandbox: off");
    expect(rows.filter((row) => row.startsWith("            │ ")).length).toBeGreaterThan(1);
  });
});

describe("fold", () => {
  it.each([
    ["short text stays whole", "abc", 10, ["abc"]],
    ["breaks at a space near the end", "aaaa bbbb cc", 10, ["aaaa bbbb ", "cc"]],
    ["cuts a word longer than the row", "abcdefghijkl", 5, ["abcde", "fghij", "kl"]],
    ["wide characters count two", "日本語日本語", 6, ["日本語", "日本語"]],
    ["a tab counts eight", "\tab", 8, ["\t", "ab"]],
  ])("%s", (_note, text, columns, pieces) => {
    expect(fold(text, columns)).toEqual(pieces);
  });
});
