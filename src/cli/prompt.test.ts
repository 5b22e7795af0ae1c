import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace } from "../test-support/cli.js";
import { shellQuote, Terminal } from "../test-support/tmux.js";
import { renderConfirmation } from "./prompt.js";

/** Drives the real binary on a real terminal (tmux on a socket of its own), as a person would. */
const term = new Terminal();
let sessions = 0;
afterAll(() => term.close());

async function runOnTerminal(ws: string, args: string, answer: string) {
  const name = `prompt-${sessions++}`;
  term.start(name, `cd ${shellQuote(ws)} && node ${BIN} call ${args}; echo "EXIT=$?"; sleep 60`);
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

describe("renderConfirmation", () => {
  it("lists tool, risk, description, command, locations, reason and agent", () => {
    expect(
      renderConfirmation({
        toolName: "shell",
        description: "Run ls",
        risk: "high",
        locations: ["/p"],
        type: "exec",
        command: "ls",
        reason: "no rule matched; default decision ask",
        agent: "helper",
      }),
    ).toBe(
      [
        "shell needs your approval (risk: high)",
        "  Run ls",
        "  requested by agent: helper",
        "  command: ls",
        "  affects: /p",
        "  why asked: no rule matched; default decision ask",
        "",
      ].join("\n"),
    );
  });
});
