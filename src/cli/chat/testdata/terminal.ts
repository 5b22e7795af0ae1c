/**
 * @module cli/chat/testdata/terminal
 * A real terminal for chat tests: tmux with its own server socket runs a shell command in a detached session;
 * tests type keys and read the screen. Everything is polled (a loaded 2-core machine may be slow to draw or
 * to list a process), and a wait that runs out fails with the screen it last saw.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/** The built command (`dist/cli/main.js`, the tsc layout the global setup builds). */
export const CHAT_MAIN = resolve(import.meta.dirname, "../../../../dist/cli/main.js");

/** How long a wait lasts before it fails: generous, as other suites share the machine's two cores. */
export const WAIT_MS = 20_000;

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One tmux server (its own socket); sessions are named panes. */
export class Terminal {
  constructor(readonly socket = `tg-term-${process.pid}-${Math.random().toString(36).slice(2, 8)}`) {}

  tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Starts `command` in a new 120×50 session `name`. */
  start(name: string, command: string): void {
    this.tmux("new-session", "-d", "-x", "120", "-y", "50", "-s", name, command);
  }

  screen(name: string): string {
    return this.tmux("capture-pane", "-p", "-t", name, "-S", "-200");
  }

  /** Types keys (tmux key names such as `Enter`, `Up`, `C-d`). */
  keys(name: string, ...keys: string[]): void {
    this.tmux("send-keys", "-t", name, ...keys);
  }

  /** Types `text` literally. */
  type(name: string, text: string): void {
    this.tmux("send-keys", "-t", name, "-l", text);
  }

  /** Pastes `text` as a terminal does: bracketed when the program asked for it (`paste-buffer -p`). */
  paste(name: string, text: string): void {
    this.tmux("set-buffer", "-b", "tg-paste", text);
    this.tmux("paste-buffer", "-p", "-d", "-b", "tg-paste", "-t", name);
  }

  /** The screen once it shows `what`; fails with the screen after `timeoutMs`. */
  async waitFor(name: string, what: string | RegExp, timeoutMs = WAIT_MS): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const text = this.screen(name);
      if (typeof what === "string" ? text.includes(what) : what.test(text)) return text;
      if (Date.now() > until) throw new Error(`screen never showed ${what}:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
  }
}

/** A shell command running `toolgate chat ARGS` in `root`, then saying how it exited and staying open. */
export function chatCommand(root: string, args = "", env = ""): string {
  return `cd ${shellQuote(root)} && ${env} NO_COLOR=1 node ${JSON.stringify(CHAT_MAIN)} chat ${args}; echo "[exited $?]"; sleep 60`;
}
