/**
 * `toolgate chat` input in a real terminal (tmux) against a local model server: a pasted block with newlines
 * is one task (tmux's `paste-buffer -p` pastes bracketed, as terminals do) and the terminal is given back
 * without bracketed paste; what was typed is recalled with the up arrow in the next session and kept in the
 * user state folder (never for piped input); `--resume` continues a saved chat with its earlier messages
 * sent to the model.
 */
import { mkdir, mkdtemp, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { removeWorkspace } from "../../loop/testdata/harness.js";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";
import { chatCommand, shellQuote, Terminal } from "../../test-support/tmux.js";

let server: ModelServer;
let root: string;
let home: string;
const term = new Terminal();
/** Two chat sessions start in one test: minutes on a loaded 2-core machine, so the budget is generous. */
const TEST_MS = 180_000;

beforeAll(async () => {
  server = await startModelServer(["test-model"]);
  root = await tempWorkspace({
    ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\nmax_retries = 0\n`,
  });
  // A user configuration folder of this file's own (the history goes there), trusting the temp folder.
  home = await mkdtemp(join(tmpdir(), "tg-chat-home-"));
  await mkdir(join(home, "toolgate"), { recursive: true });
  const trusted = [{ path: await realpath(tmpdir()), since: new Date(0).toISOString(), content: "any" }];
  await writeFile(join(home, "toolgate", "trusted.json"), JSON.stringify({ version: 2, trusted }));
});
afterAll(async () => {
  term.close();
  await server.close();
  await removeWorkspace(root);
  await removeWorkspace(home);
});

const env = () => `XDG_CONFIG_HOME=${shellQuote(home)}`;
const historyPath = () => join(home, "toolgate", "state", "chat-history.jsonl");

describe("toolgate chat input in a terminal", () => {
  it(
    "sends a pasted block with newlines as one task and gives the terminal back without bracketed paste",
    async () => {
      const name = "paste";
      term.start(name, chatCommand(root, "", env()));
      await term.waitForPrompt(name);
      server.push({ text: "Three lines received." });
      const before = server.requests.length;
      term.paste(name, "first line\nsecond line\nthird line");
      // At the prompt the block is one line, its breaks shown as ␤; nothing is sent before Enter.
      await term.waitFor(name, "› first line␤second line␤third line");
      expect(server.requests.length).toBe(before);
      term.keys(name, "Enter");
      await term.waitFor(name, "Three lines received.");
      expect(server.requests.length - before).toBe(1);
      expect(server.requests.at(-1)!.messages.at(-1)).toEqual({
        role: "user",
        content: "first line\nsecond line\nthird line",
      });
      await term.waitForPrompt(name);
      term.type(name, "/exit");
      term.keys(name, "Enter");
      await term.waitFor(name, "[exited 0]");
      // The shell's `sleep` now owns the terminal: a paste reaches it plain, without the paste markers.
      term.paste(name, "after-exit");
      const after = await term.waitFor(name, "after-exit");
      expect(after).not.toContain("[200~");
    },
    TEST_MS,
  );

  it(
    "recalls earlier input with the up arrow in the next session; piped input writes no history",
    async () => {
      const first = "history-1";
      term.start(first, chatCommand(root, "", env()));
      await term.waitForPrompt(first);
      server.push({ text: "Noted the heron." });
      term.type(first, "remember the heron");
      term.keys(first, "Enter");
      await term.waitFor(first, /Noted the heron\.\n.*tokens\)\n›/);
      await term.waitForPrompt(first);
      term.type(first, "/exit");
      term.keys(first, "Enter");
      await term.waitFor(first, "[exited 0]");
      const saved = (await readFile(historyPath(), "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(saved.slice(-2)).toEqual(["remember the heron", "/exit"]);
      expect((await stat(historyPath())).mode & 0o777).toBe(0o600);

      const second = "history-2";
      term.start(second, chatCommand(root, "", env()));
      await term.waitForPrompt(second);
      term.keys(second, "Up");
      await term.waitFor(second, /^› \/exit$/m);
      term.keys(second, "Up");
      await term.waitFor(second, /^› remember the heron$/m);
      server.push({ text: "Still the heron." });
      const before = server.requests.length;
      term.keys(second, "Enter");
      await term.waitFor(second, "Still the heron.");
      expect(server.requests.slice(before).map((b) => b.messages.at(-1))).toEqual([
        { role: "user", content: "remember the heron" },
      ]);
      await term.waitForPrompt(second);
      term.keys(second, "C-d");
      await term.waitFor(second, "[exited 0]");

      const kept = await readFile(historyPath(), "utf8");
      server.push({ text: "piped answer" });
      const piped = await toolgate(["chat", "--workspace", root], {
        input: "a piped task\n",
        env: { XDG_CONFIG_HOME: home },
      });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain("piped answer");
      expect(await readFile(historyPath(), "utf8")).toBe(kept);
    },
    TEST_MS,
  );

  it(
    "--resume continues the newest chat: the earlier messages reach the model again",
    async () => {
      const first = "resume-1";
      term.start(first, chatCommand(root, "", env()));
      await term.waitForPrompt(first);
      server.push({ text: "Noted: 42." });
      term.type(first, "remember 42");
      term.keys(first, "Enter");
      await term.waitFor(first, /Noted: 42\.\n.*tokens\)\n›/);
      await term.waitForPrompt(first);
      term.keys(first, "C-d");
      const ended = await term.waitFor(first, "[exited 0]");
      const file = /bye — transcript saved to (\S+\.jsonl)/.exec(ended)?.[1];
      expect(file).toBeDefined();

      const second = "resume-2";
      term.start(second, chatCommand(root, "--resume", env()));
      const banner = await term.waitForPrompt(second);
      expect(banner).toMatch(/\(resuming \d{8}-\d{6}-chat-[0-9a-f]{6}: 2 message\(s\)\)/);
      server.push({ text: "It was 42." });
      term.type(second, "which number?");
      term.keys(second, "Enter");
      await term.waitFor(second, "It was 42.");
      expect(server.requests.at(-1)!.messages.slice(1)).toEqual([
        { role: "user", content: "remember 42" },
        { role: "assistant", content: "Noted: 42." },
        { role: "user", content: "which number?" },
      ]);
      await term.waitForPrompt(second);
      term.keys(second, "C-d");
      expect(await term.waitFor(second, "[exited 0]")).toContain(`bye — transcript saved to ${file}`);
    },
    TEST_MS,
  );
});
