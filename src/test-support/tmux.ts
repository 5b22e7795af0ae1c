/**
 * @module test-support/tmux
 * A real terminal for tests: a tmux server on its own socket runs commands in named sessions; the test types
 * keys and polls the screen. Nothing here sleeps and hopes: a loaded machine may be slow to draw, so a test
 * waits for what it needs on the screen (the prompt before it types), and a wait that runs out fails with the
 * screen it last saw.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

/** The built command in the tsc layout the global setup builds (`dist/cli/main.js`). */
export const CLI_MAIN = resolve(import.meta.dirname, "../../dist/cli/main.js");

/**
 * How long a wait lasts before it fails. It only catches a hang: two test suites on a 2-core machine once
 * took over 15 s to draw a reply, so it is generous.
 */
export const WAIT_MS = 60_000;

/** `s` as one shell word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One tmux server (its own socket, never the user's); sessions are named panes. */
export class Terminal {
  constructor(readonly socket = `tg-term-${process.pid}-${Math.random().toString(36).slice(2, 8)}`) {}

  tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /**
   * Runs `command` in a new session `name`, `columns` wide (default 160) and 50 rows (in `cwd` when given). The
   * pane stays after the command ends (remain-on-exit, set before the command starts), so a test can still read
   * its last screen.
   */
  start(name: string, command: string, cwd?: string, columns = 160): void {
    this.tmux(
      "start-server",
      ";",
      "set-option",
      "-g",
      "remain-on-exit",
      "on",
      ";",
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(columns),
      "-y",
      "50",
      ...(cwd === undefined ? [] : ["-c", cwd]),
      command,
    );
  }

  /** The pane's screen and the 200 lines above it. */
  screen(name: string): string {
    return this.tmux("capture-pane", "-p", "-t", name, "-S", "-200");
  }

  /** Types keys (tmux key names such as `Enter`, `Up`, `C-d`; other words are typed as they are). */
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

  /** The process id of the pane's command (the shell running the test's command line). */
  panePid(name: string): number {
    return Number(this.tmux("display-message", "-p", "-t", name, "#{pane_pid}").trim());
  }

  /** The screen once it shows `what`; fails with the screen after `timeoutMs`. */
  async waitFor(name: string, what: string | RegExp, timeoutMs = WAIT_MS): Promise<string> {
    const shows = (text: string) => (typeof what === "string" ? text.includes(what) : what.test(text));
    return this.waitUntil(name, shows, `${what}`, timeoutMs);
  }

  /**
   * The screen once its last line is the bare prompt `prompt` (nothing typed after it): the program is
   * waiting for a line. Keys typed before that may be lost (a program that reads a line only when it asks
   * for one drops what came earlier), so a test waits for this before it types.
   */
  async waitForPrompt(name: string, prompt = "›", timeoutMs = WAIT_MS): Promise<string> {
    const atPrompt = (text: string) => text.trimEnd().split("\n").at(-1)?.trimEnd() === prompt;
    return this.waitUntil(name, atPrompt, `the prompt ${prompt}`, timeoutMs);
  }

  private async waitUntil(
    name: string,
    done: (text: string) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      let text = "";
      try {
        text = this.screen(name);
      } catch {
        // No such pane (yet, or any more): report what was last seen.
      }
      if (done(text)) return text;
      if (Date.now() > until) throw new Error(`the terminal never showed ${what}:\n${text}`);
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

/** A terminal on the tmux socket `socket`. */
export function terminal(socket?: string): Terminal {
  return new Terminal(socket);
}

/** A shell command running `toolgate chat ARGS` in `root`, then saying how it exited and staying open. */
export function chatCommand(root: string, args = "", env = ""): string {
  return `cd ${shellQuote(root)} && ${env} NO_COLOR=1 node ${JSON.stringify(CLI_MAIN)} chat ${args}; echo "[exited $?]"; sleep 60`;
}
