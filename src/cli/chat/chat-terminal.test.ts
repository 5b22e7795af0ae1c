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
import { chatCommand, Terminal } from "../../test-support/tmux.js";

const term = new Terminal();
/** Several chat turns, each waited for on the screen: minutes on a loaded 2-core machine. */
const TEST_MS = 180_000;

/** The chat process under the pane's shell, looked up until it shows (a loaded machine may be slow). */
async function chatProcess(name: string): Promise<string> {
  const shell = String(term.panePid(name));
  for (let i = 0; i < 600; i++) {
    try {
      return execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim().split("\n")[0]!;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no process under the pane's shell; screen:\n${term.screen(name)}`);
}

/** Waits until the model server has had `count` requests. */
async function requestsReach(count: number): Promise<void> {
  for (let i = 0; server.requests.length < count; i++) {
    if (i > 1_200) throw new Error(`the model server got ${server.requests.length} requests, not ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
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
  it(
    "streams, asks with always, cancels with Ctrl-C and exits on the second",
    async () => {
      const name = "chat";
      term.start(name, chatCommand(root));
      const banner = await term.waitForPrompt(name);
      expect(banner).toContain(`toolgate chat — test-model via ollama at ${server.url}`);
      expect(banner).toContain(
        "\nmodel: ready (context window 8192 tokens, from /api/show (test.context_length))\n",
      );
      expect(banner).toContain("transcript: ");

      const listAgents = { toolCalls: [{ name: "list_available_agents", arguments: {} }] };
      server.push(listAgents, { text: "There is one agent: scout." });
      term.keys(name, "which agents are there?", "Enter");
      const asked = await term.waitForPrompt(name, "Allow? [y]es / [N]o / [a]lways:");
      expect(asked).toContain("list_available_agents needs your approval (risk: low)");
      expect(asked).toContain(
        "always = allow exactly this list_available_agents call (same arguments) for the rest",
      );
      term.keys(name, "a", "Enter");
      const answered = await term.waitFor(name, "There is one agent: scout.");
      expect(answered).toMatch(/✓ list_available_agents · list available agents · ask · \d+(\.\d+)? m?s/);

      // The exact same call again: approved from the session's allow-list, no question. The next line is
      // typed only once the prompt is back (a line typed while no question is pending is lost).
      await term.waitForPrompt(name);
      server.push(listAgents, { text: "Still just scout." });
      term.keys(name, "and now?", "Enter");
      const again = await term.waitFor(name, /Still just scout\.\n {2}\(\d+ \/ 8192 tokens\)\n›/);
      expect(again.split("Allow? [y]es").length - 1).toBe(1);

      // A reply that never finishes: Ctrl-C cancels it and returns to the prompt; a second Ctrl-C exits.
      await term.waitForPrompt(name);
      server.push({ hang: true });
      const before = server.requests.length;
      term.keys(name, "wait forever", "Enter");
      await requestsReach(before + 1);
      term.keys(name, "C-c");
      await term.waitFor(name, "(cancelled)");
      expect(term.screen(name)).toContain("(cancelling — press Ctrl-C again to exit)");
      await term.waitForPrompt(name);
      term.keys(name, "C-c");
      const end = await term.waitFor(name, "[exited 0]");
      expect(end).toContain("bye — transcript saved to ");
      expect(server.remaining()).toBe(0);
    },
    TEST_MS,
  );

  it(
    "quits on Ctrl-D at the prompt with the transcript saved",
    async () => {
      const name = "chat-eof";
      term.start(name, chatCommand(root));
      await term.waitForPrompt(name);
      term.keys(name, "C-d");
      const end = await term.waitFor(name, "[exited 0]");
      const file = /bye — transcript saved to (\S+\.jsonl)/.exec(end)?.[1];
      expect(file).toBeDefined();
      const records = (await readFile(file!, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(records[0]).toMatchObject({ type: "session", model: "test-model" });
    },
    TEST_MS,
  );

  it(
    "ends on SIGTERM while a reply is pending, and on SIGHUP when the terminal closes",
    async () => {
      for (const signal of ["TERM", "HUP"]) {
        const name = `chat-${signal}`;
        term.start(name, chatCommand(root));
        await term.waitForPrompt(name);
        server.push({ hang: true });
        const before = server.requests.length;
        term.keys(name, "wait forever", "Enter");
        // The reply is pending once the server has the request.
        await requestsReach(before + 1);
        execFileSync("kill", [`-${signal}`, await chatProcess(name)]);
        const end = await term.waitFor(name, "[exited 0]");
        expect(end).toContain("bye — transcript saved to ");
      }
    },
    TEST_MS,
  );

  it(
    "lists /commands, refuses an unknown one, joins a continued line and exits with /exit",
    async () => {
      const name = "chat-commands";
      term.start(name, chatCommand(root));
      await term.waitForPrompt(name);
      term.keys(name, "/help", "Enter");
      await term.waitFor(name, "/compact          shorten old tool results");
      await term.waitForPrompt(name);
      term.keys(name, "/bogus", "Enter");
      await term.waitFor(name, "unknown command /bogus — /help lists the commands");
      await term.waitForPrompt(name);
      server.push({ text: "Got both lines." });
      const before = server.requests.length;
      term.type(name, "first \\");
      term.keys(name, "Enter");
      await term.waitFor(name, /first \\\n›/);
      await term.waitForPrompt(name);
      term.keys(name, "second", "Enter");
      await term.waitFor(name, "Got both lines.");
      expect(server.requests.length - before).toBe(1);
      expect(server.requests.at(-1)!.messages.at(-1)).toEqual({ role: "user", content: "first \nsecond" });
      await term.waitFor(name, /tokens\)\n›/);
      await term.waitForPrompt(name);
      term.keys(name, "/exit", "Enter");
      expect(await term.waitFor(name, "[exited 0]")).toContain("bye — transcript saved to ");
    },
    TEST_MS,
  );
});
