import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, tempWorkspace } from "../test-support/cli.js";
import { renderConfirmation } from "./prompt.js";

/** Drives the real binary on a real terminal (tmux), as a person would. */
const sessions: string[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) {
    try {
      execFileSync("tmux", ["kill-session", "-t", s]);
    } catch {
      // already gone
    }
  }
});

function tmux(...args: string[]): string {
  return execFileSync("tmux", args, { encoding: "utf8" });
}

async function screenUntil(session: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let screen = "";
  while (Date.now() < end) {
    screen = tmux("capture-pane", "-p", "-t", session);
    if (pattern.test(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`screen never matched ${pattern}:\n${screen}`);
}

async function runOnTerminal(ws: string, args: string, answer: string) {
  const session = `tg-prompt-${process.pid}-${sessions.length}`;
  sessions.push(session);
  const command = `cd ${ws} && node ${BIN} call ${args}; echo "EXIT=$?"; sleep 30`;
  tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", command);
  const shown = await screenUntil(session, /Allow\? \[y\/N\]/);
  tmux("send-keys", "-t", session, answer, "Enter");
  const done = await screenUntil(session, /EXIT=\d/);
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
