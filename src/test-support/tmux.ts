/**
 * @module test-support/tmux
 * A real terminal for tests: a tmux server on its own socket runs a command in a pane; the test sends keys
 * and polls the screen (never sleep-and-hope: a loaded machine may be slow to draw).
 */
import { execFileSync } from "node:child_process";

export interface Terminal {
  /** Runs `command` in a new pane (in `cwd`) named `name`. */
  start(name: string, command: string, cwd: string): void;
  keys(name: string, ...keys: string[]): void;
  screen(name: string): string;
  /** The screen once it shows `what`; throws with the screen after `timeoutMs`. */
  waitFor(name: string, what: string | RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

export function terminal(socket: string): Terminal {
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const screen = (name: string) => tmux("capture-pane", "-p", "-t", name, "-S", "-200");
  return {
    start(name, command, cwd) {
      tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", cwd, command);
      // Keep the pane (and its last screen) after the command ends, so a test can read its goodbye.
      tmux("set-option", "-t", name, "remain-on-exit", "on");
    },
    keys(name, ...keys) {
      tmux("send-keys", "-t", name, ...keys);
    },
    screen,
    async waitFor(name, what, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        let text = "";
        try {
          text = screen(name);
        } catch {
          // The pane is gone (the command ended): report what was last seen.
        }
        if (typeof what === "string" ? text.includes(what) : what.test(text)) return text;
        if (Date.now() > until) throw new Error(`the terminal never showed ${what}:\n${text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close() {
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
}
