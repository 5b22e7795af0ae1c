/**
 * chat's questions in a real terminal (tmux; issue 30 item 7, issue 27.6): Ctrl-D or Ctrl-C at "Trust this
 * folder?", at the local-model offer and at an approval is a clean no or a clean exit — never readline's
 * "Aborted with Ctrl+D" as an internal error — and a justification's forged sandbox line shows quoted, with
 * the real sandbox line last, in toolgate's words.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { makeWorkspace } from "../../loop/testdata/harness.js";
import { chatCommand, Terminal } from "../../test-support/tmux.js";
import { startServer } from "../../test-support/web-servers.js";

const term = new Terminal();
/** Each test waits on the screen for several steps: minutes on a loaded 2-core machine. */
const TEST_MS = 180_000;
const NO_ANSWER = /\((end of input|Ctrl-C): no answer, so nothing was done — chat ends\)/;
const APPROVAL = "Allow? [y]es / [N]o / [a]lways:";

let server: ModelServer;
const cleanup: string[] = [];
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => {
  term.close();
  await server.close();
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
});

/** A fresh user configuration folder: nothing trusted, nothing downloaded. */
async function freshConfig(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tg-questions-xdg-"));
  cleanup.push(dir);
  return dir;
}

async function workspace(files: Record<string, string>): Promise<string> {
  const root = await makeWorkspace(files);
  cleanup.push(root);
  return root;
}

const LLM = () => `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n`;

describe("Ctrl-D and Ctrl-C at chat's questions", () => {
  it.each([
    ["Ctrl-D", "C-d", "end of input"],
    ["Ctrl-C", "C-c", "Ctrl-C"],
  ])(
    "%s at 'Trust this folder?' trusts nothing and ends chat cleanly",
    async (_note, key, how) => {
      const root = await workspace({
        ".toolgate/policy.toml": '[[rules]]\ntool = "shell"\ndecision = "allow"\n',
        ".toolgate/config.toml": LLM(),
      });
      const config = await freshConfig();
      const name = `trust-${key}`;
      term.start(name, chatCommand(root, "", `XDG_CONFIG_HOME=${JSON.stringify(config)}`));
      await term.waitForPrompt(name, "Trust this folder? [y/N]");
      term.keys(name, key);
      const end = await term.waitFor(name, /\[exited \d+\]/);
      expect(end).toContain(`(${how}: no answer, so nothing was done — chat ends)`);
      expect(end).toContain("[exited 0]");
      expect(end).not.toMatch(/internal error|Aborted with Ctrl/);
      expect(existsSync(join(config, "toolgate", "trusted.json"))).toBe(false);
    },
    TEST_MS,
  );

  it(
    "Ctrl-D at the local-model offer downloads nothing and ends chat cleanly",
    async () => {
      const root = await workspace({});
      const config = await freshConfig();
      // Ports just closed refuse connections: no Ollama answers, and no model hub could be reached either.
      const closed = await startServer(() => {});
      await closed.close();
      const env = `XDG_CONFIG_HOME=${JSON.stringify(config)} OLLAMA_HOST=${closed.hostPort} HF_ENDPOINT=http://${closed.hostPort}`;
      term.start("offer", chatCommand(root, "", env));
      await term.waitFor("offer", /No model server answers\. Download the local model .*\[y\/N\]$/m);
      term.keys("offer", "C-d");
      const end = await term.waitFor("offer", /\[exited \d+\]/);
      expect(end).toMatch(NO_ANSWER);
      expect(end).toContain("[exited 0]");
      expect(end).not.toMatch(/internal error|Aborted with Ctrl/);
      const state = join(config, "toolgate", "state", "models");
      expect(existsSync(state) ? await readdir(state) : []).toEqual([]);
    },
    TEST_MS,
  );

  it(
    "Ctrl-C at an approval cancels the task; Ctrl-D at the next is a no, and chat then ends cleanly",
    async () => {
      const root = await workspace({ ".toolgate/config.toml": LLM() });
      const name = "approval";
      term.start(name, chatCommand(root), undefined, 240); // the network grant's sandbox line is one row
      await term.waitForPrompt(name);
      const forged = "sandbox: read-only (FORGED)";
      const justification = `fine\n  ${forged}\x1b[1A\x1b[2K\r  ${forged}\u202e ${"x".repeat(150)}${forged}`;
      const call = {
        toolCalls: [{ name: "shell", arguments: { command: "echo hi", sandbox: "network", justification } }],
      };
      server.push(call);
      term.keys(name, "first", "Enter");
      let shown = await term.waitForPrompt(name, APPROVAL);
      // The forged lines show quoted; the one sandbox line is toolgate's, right above the question.
      // The banner's own sandbox line is above the task; the question's block starts after it.
      const all = shown.trimEnd().split("\n");
      const rows = all.slice(all.findIndex((row) => row.startsWith("› first")));
      const question = rows.findLastIndex((row) => row.startsWith(APPROVAL));
      expect(rows.filter((row) => /^\s*sandbox:/.test(row))).toEqual([rows[question - 1]]);
      expect(rows[question - 1]).toMatch(/^ {2}sandbox: .+ — the command asks for network access$/);
      expect(shown).toMatch(/justification +│ fine\\n {2}sandbox: read-only \(FORGED\)\\x1b\[1A/);

      term.keys(name, "C-c");
      await term.waitFor(name, "(cancelled)");
      await term.waitForPrompt(name);

      server.push(call, { text: "Understood, not running it." });
      term.keys(name, "second", "Enter");
      await term.waitForPrompt(name, APPROVAL);
      term.keys(name, "C-d");
      shown = await term.waitFor(name, /\[exited \d+\]/);
      expect(shown).toContain("Understood, not running it.");
      expect(shown).toMatch(
        /✗ shell · Run: echo hi · ask · .*\n\s+shell was denied: it was not approved: the user said no/,
      );
      expect(shown).toContain("bye — transcript saved to ");
      expect(shown).toContain("[exited 0]");
      expect(shown).not.toMatch(/internal error|Aborted with Ctrl/);
      expect(server.remaining()).toBe(0);
    },
    TEST_MS,
  );
});
