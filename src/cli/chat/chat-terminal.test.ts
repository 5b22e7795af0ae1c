/**
 * `toolgate chat` in a real terminal: tmux (its own server socket) runs the built command against a local
 * model server; the test types keys and reads the screen — the banner, streamed answers, the tool line, the
 * confirmation with yes / no / always, "always" not asking again for the exact same call, Ctrl-C cancelling
 * a running task and a second Ctrl-C exiting.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { makeWorkspace, removeWorkspace } from "../../loop/testdata/harness.js";
import { CHAT_MAIN, shellQuote, Terminal } from "./testdata/terminal.js";

const term = new Terminal();
const session = "chat";

/**
 * The chat process under the pane's shell. Looked up until it shows (a loaded machine may be slow to list it);
 * if it never does, the error carries the screen, which says why.
 */
async function childOf(shell: string, name: string): Promise<string> {
  for (let i = 0; i < 150; i++) {
    try {
      return execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim().split("\n")[0]!;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no process under the pane's shell; screen:\n${tmux("capture-pane", "-p", "-t", name)}`);
}

const tmux = (...args: string[]) => term.tmux(...args);
const screen = (target = session) => term.screen(target);
const waitFor = (what: string | RegExp, timeoutMs = 15_000, target = session) =>
  term.waitFor(target, what, timeoutMs);

/** Runs the real binary's `toolgate chat`. */
function chatCommand(): string {
  return `node ${JSON.stringify(CHAT_MAIN)} chat`;
}

let server: ModelServer;
let root: string;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
  root = await makeWorkspace({
    ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n`,
  });
  await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
  await writeFile(
    join(root, ".toolgate", "agents", "scout.md"),
    "---\ndescription: Looks around\ntools: []\n---\n",
  );
});
afterAll(async () => {
  term.close();
  await server.close();
  await removeWorkspace(root);
});

describe("toolgate chat in a terminal", () => {
  it("streams, asks with always, cancels with Ctrl-C and exits on the second", async () => {
    const command = `cd ${shellQuote(root)} && NO_COLOR=1 ${chatCommand()}; echo "[exited $?]"; sleep 30`;
    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", session, command);
    await waitFor(/^›/m);
    const banner = screen();
    expect(banner).toContain(`toolgate chat — test-model via ollama at ${server.url}`);
    expect(banner).toContain("\nmodel: ready (context window 8192 tokens)\n");
    expect(banner).toContain("transcript: ");

    const listAgents = { toolCalls: [{ name: "list_available_agents", arguments: {} }] };
    server.push(listAgents, { text: "There is one agent: scout." });
    tmux("send-keys", "-t", session, "which agents are there?", "Enter");
    const asked = await waitFor("Allow? [y]es / [N]o / [a]lways:");
    expect(asked).toContain("list_available_agents needs your approval (risk: low)");
    expect(asked).toContain(
      "always = allow exactly this list_available_agents call (same arguments) for the rest",
    );
    tmux("send-keys", "-t", session, "a", "Enter");
    const answered = await waitFor("There is one agent: scout.");
    expect(answered).toMatch(/✓ list_available_agents · list available agents · ask · \d+ ms/);

    // The exact same call again: approved from the session's allow-list, no question.
    server.push(listAgents, { text: "Still just scout." });
    tmux("send-keys", "-t", session, "and now?", "Enter");
    // The next prompt is up before anything is typed (a line typed while no question is pending is lost).
    const again = await waitFor(/Still just scout\.\n {2}\(13 \/ 8192 tokens\)\n›/);
    expect(again.split("Allow? [y]es").length - 1).toBe(1);

    // A reply that never finishes: Ctrl-C cancels it and returns to the prompt; a second Ctrl-C exits.
    server.push({ hang: true });
    tmux("send-keys", "-t", session, "wait forever", "Enter");
    await new Promise((r) => setTimeout(r, 300));
    tmux("send-keys", "-t", session, "C-c");
    await waitFor("(cancelled)");
    expect(screen()).toContain("(cancelling — press Ctrl-C again to exit)");
    tmux("send-keys", "-t", session, "C-c");
    const end = await waitFor("[exited 0]");
    expect(end).toContain("bye — transcript saved to ");
    expect(server.remaining()).toBe(0);
  });

  it("quits on Ctrl-D at the prompt with the transcript saved", async () => {
    const name = "chat-eof";
    const command = `cd ${shellQuote(root)} && NO_COLOR=1 ${chatCommand()}; echo "[exited $?]"; sleep 30`;
    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", name, command);
    await waitFor(/^›/m, 15_000, name);
    tmux("send-keys", "-t", name, "C-d");
    const end = await waitFor("[exited 0]", 15_000, name);
    const file = /bye — transcript saved to (\S+\.jsonl)/.exec(end)?.[1];
    expect(file).toBeDefined();
    const records = (await readFile(file!, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records[0]).toMatchObject({ type: "session", model: "test-model" });
  });

  it("ends on SIGTERM while a reply is pending, and on SIGHUP when the terminal closes", async () => {
    for (const signal of ["TERM", "HUP"]) {
      const name = `chat-${signal}`;
      const command = `cd ${shellQuote(root)} && NO_COLOR=1 ${chatCommand()}; echo "[exited $?]"; sleep 30`;
      tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", name, command);
      await waitFor(/^›/m, 15_000, name);
      server.push({ hang: true });
      tmux("send-keys", "-t", name, "wait forever", "Enter");
      const requests = server.requests.length;
      for (let i = 0; server.requests.length === requests && i < 300; i++)
        await new Promise((r) => setTimeout(r, 50));
      const shell = tmux("display-message", "-p", "-t", name, "#{pane_pid}").trim();
      const node = await childOf(shell, name);
      execFileSync("kill", [`-${signal}`, node]);
      const end = await waitFor("[exited 0]", 15_000, name);
      expect(end).toContain("bye — transcript saved to ");
    }
  });

  it("lists /commands, refuses an unknown one, joins a continued line and exits with /exit", async () => {
    const name = "chat-commands";
    const command = `cd ${shellQuote(root)} && NO_COLOR=1 ${chatCommand()}; echo "[exited $?]"; sleep 30`;
    tmux("new-session", "-d", "-x", "120", "-y", "50", "-s", name, command);
    await waitFor(/^›/m, 15_000, name);
    tmux("send-keys", "-t", name, "/help", "Enter");
    await waitFor("/compact          shorten old tool results", 15_000, name);
    tmux("send-keys", "-t", name, "/bogus", "Enter");
    await waitFor("unknown command /bogus — /help lists the commands", 15_000, name);
    server.push({ text: "Got both lines." });
    const before = server.requests.length;
    tmux("send-keys", "-t", name, "-l", "first \\");
    tmux("send-keys", "-t", name, "Enter");
    await waitFor(/first \\\n›/, 15_000, name);
    tmux("send-keys", "-t", name, "second", "Enter");
    await waitFor("Got both lines.", 15_000, name);
    expect(server.requests.length - before).toBe(1);
    expect(server.requests.at(-1)!.messages.at(-1)).toEqual({ role: "user", content: "first \nsecond" });
    await waitFor(/tokens\)\n›/, 15_000, name);
    tmux("send-keys", "-t", name, "/exit", "Enter");
    expect(await waitFor("[exited 0]", 15_000, name)).toContain("bye — transcript saved to ");
  });
});
