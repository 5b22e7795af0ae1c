/**
 * `toolgate chat` with piped input against a local model server: the start-up model check in the banner, an
 * unreachable server or a missing model as an error on stderr with exit 2 (nobody is there to start or pull
 * it), piped tasks kept while the session starts, an incomplete reply shown as not an answer. Commands run
 * in-process (the dispatcher the binary runs).
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { tempWorkspace } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["test-model"], 16384);
});
afterAll(async () => server.close());

const config = (baseUrl: string, model = "test-model") =>
  `[llm]\nprovider = "ollama"\nbase_url = "${baseUrl}"\nmodel = "${model}"\nmax_retries = 0\n`;

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("toolgate chat without a terminal", () => {
  it("checks the model in its banner and keeps piped tasks that arrive while it starts", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url) });
    server.push({ text: "Hello back." });
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input: "hello\n" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`toolgate chat — test-model via ollama at ${server.url}`);
    expect(r.stdout).toContain(
      "\nmodel: ready (context window 16384 tokens, from /api/show (test.context_length))\n",
    );
    expect(r.stdout).toContain("Hello back.");
    expect(r.stdout).toContain("bye — transcript saved to");
    expect(server.requests.at(-1)!.messages.at(-1)).toEqual({ role: "user", content: "hello" });
  });

  it("stops with exit 2 and the reason on stderr when the server cannot be reached", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(url) });
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input: "hello\n" });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `toolgate: cannot reach Ollama at ${url} — start it with \`ollama serve\` (or set [llm] base_url / --base-url)\n`,
    );
  });

  it("stops with exit 2 and the pull command when the model is missing", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url, "llama9") });
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input: "hello\n" });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("toolgate: model llama9 not found — run `ollama pull llama9`\n");
  });

  it("shows a reply cut at the token limit as not an answer", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url) });
    server.push({ text: "The first half of", finishReason: "length" });
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input: "write a lot\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `toolgate: the reply from Ollama at ${server.url} was cut at the token limit (finish reason "length") — raise [llm] max_tokens or context_window — not an answer (kept in the transcript)\n`,
    );
  });

  it("runs /commands instead of sending them, and joins lines ending in a backslash", async () => {
    const ws = await tempWorkspace({
      ".toolgate/config.toml": config(server.url),
      ".toolgate/policy.toml": 'default = "ask"\n[[rules]]\ntool = "read_file"\ndecision = "allow"\n',
    });
    server.push({ text: "Joined." });
    const before = server.requests.length;
    const input =
      "/tools\n/policy\n/bogus\n/model\n/model llama9\nfirst line \\\nsecond line\n/clear\n/exit\nnever sent\n";
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n {2}read_file — \S/);
    expect(r.stdout).toContain("; default ask; 1 rule(s)\n");
    expect(r.stdout).toContain(
      '  policy.toml#1 (line 2): tool = "read_file", decision = "allow" — every call of the tool\nworkspace: trusted\nsandbox: workspace-write (',
    );
    expect(r.stdout).toContain("unknown command /bogus — /help lists the commands\n");
    expect(r.stdout).toContain(`model: test-model via ollama at ${server.url}\n`);
    expect(r.stdout).toContain("model: test-model — model llama9 not found — run `ollama pull llama9`\n");
    expect(r.stdout).toContain("Joined.");
    expect(r.stdout).toContain("(new conversation — the transcript goes on)\n");
    // Only the joined task reached the model.
    expect(server.requests.length - before).toBe(1);
    expect(server.requests.at(-1)!.messages.at(-1)).toEqual({
      role: "user",
      content: "first line \nsecond line",
    });
  });

  it("--resume continues the newest chat with its conversation, in the same transcript", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url) });
    server.push({ text: "Noted: 42." });
    const first = await toolgateInProcess(["chat", "--workspace", ws], { input: "remember 42\n" });
    const file = /bye — transcript saved to (\S+\.jsonl)/.exec(first.stdout)![1]!;
    server.push({ text: "It was 42." });
    const second = await toolgateInProcess(["chat", "--resume", "--workspace", ws], {
      input: "which number?\n",
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^\(resuming \d{8}-\d{6}-chat-[0-9a-f]{6}: 2 message\(s\)\)\n/);
    expect(second.stdout).toContain(`bye — transcript saved to ${file}`);
    expect(server.requests.at(-1)!.messages.slice(1)).toEqual([
      { role: "user", content: "remember 42" },
      { role: "assistant", content: "Noted: 42." },
      { role: "user", content: "which number?" },
    ]);
    // Two runs of the binary, one after the other: a minute or more on a loaded 2-core machine.
  }, 240_000);

  it("--resume with an unknown session stops with exit 2 and says where it looked", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url) });
    const bad = await toolgateInProcess(["chat", "--resume", "nope", "--workspace", ws], { input: "" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("toolgate: no transcript nope (looked in the current folder and ");
  });

  it("shows thinking, or hides it with --no-thinking", async () => {
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url) });
    server.push(
      { thinking: "a quiet musing", text: "Answer one." },
      { thinking: "a quiet musing", text: "Answer two." },
    );
    const shown = await toolgateInProcess(["chat", "--workspace", ws], { input: "hi\n" });
    expect(shown.stdout).toContain("(thinking) a quiet musing");
    expect(shown.stdout).toContain("Answer one.");
    const hidden = await toolgateInProcess(["chat", "--no-thinking", "--workspace", ws], { input: "hi\n" });
    expect(hidden.stdout).not.toContain("a quiet musing");
    expect(hidden.stdout).toContain("Answer two.");
  });
});

describe("toolgate chat and the project's MCP servers", () => {
  it("sees .mcp.json edits: the turn after an edit lists the new server's tools", async () => {
    const { readFileSync, writeFileSync } = await import("node:fs");
    const { mkdtemp } = await import("node:fs/promises");
    const { contentDigest } = await import("../../workspace/index.js");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { testServerPath } = await import("../../mcp-client/testdata/servers.js");
    const mcp = (names: string[]) =>
      JSON.stringify({
        mcpServers: Object.fromEntries(
          names.map((n) => [n, { command: process.execPath, args: [testServerPath] }]),
        ),
      });
    const ws = await tempWorkspace({ ".toolgate/config.toml": config(server.url), ".mcp.json": mcp(["a"]) });
    const env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-chat-xdg-")) };
    expect((await toolgateInProcess(["trust", ws], { env })).code).toBe(0);
    const toolsOf = (body: { tools?: unknown }) => JSON.stringify(body.tools ?? []);
    const seen: string[] = [];
    server.push(
      (body) => {
        seen.push(toolsOf(body));
        // During the session, between two turns, a server is added — and the user trusts the edit (as
        // `toolgate trust` would: an edit nobody trusted starts nothing, trust-content.e2e.test.ts).
        const edited = mcp(["a", "b"]);
        writeFileSync(join(ws, ".mcp.json"), edited);
        const store = join(env.XDG_CONFIG_HOME, "toolgate", "trusted.json");
        const list = JSON.parse(readFileSync(store, "utf8"));
        list.trusted[0].files[".mcp.json"] = { sha256: contentDigest(edited) };
        writeFileSync(store, JSON.stringify(list));
        return { text: "First answer." };
      },
      (body) => {
        seen.push(toolsOf(body));
        return { text: "Second answer." };
      },
    );
    const r = await toolgateInProcess(["chat", "--workspace", ws], { input: "first\nsecond\n", env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Second answer.");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toContain("mcp__a__echo");
    expect(seen[0]).not.toContain("mcp__b__echo");
    expect(seen[1]).toContain("mcp__b__echo");
  }, 120_000);
});
