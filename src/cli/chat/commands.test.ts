/**
 * Chat commands that change the session, through the real `toolgate chat` with piped input against a local
 * model server: `/model NAME` switches the conversation and the sub-agents it starts afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatBody, type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";
import { DEFAULT_READ_ASK_PATTERNS } from "../../workspace/index.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["test-model", "other-model"]);
});
afterAll(async () => server.close());

const systemOf = (body: ChatBody) => String(body.messages[0]?.content ?? "");

describe("/model", () => {
  it("switches the model of the conversation and of the sub-agents started after it", async () => {
    const ws = await tempWorkspace({
      ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\nmax_retries = 0\n`,
      ".toolgate/agents/scout.md": "---\ndescription: Looks around\ntools: []\n---\nLook around.\n",
    });
    const before = server.requests.length;
    server.push(
      { text: "Hello from the first model." },
      { toolCalls: [{ name: "spawn_agents", arguments: { agents: [{ agent: "scout", task: "look" }] } }] },
      (body) => {
        // The child: its own instructions, on the model chosen with /model.
        expect(systemOf(body)).toContain('You are the agent "scout"');
        return { text: "scout saw nothing odd" };
      },
      { text: "The scout saw nothing odd." },
    );
    const input = "hello\n/model other-model\ndelegate to scout\n";
    const r = await toolgate(["chat", "--yes", "--workspace", ws], { input });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "model: other-model — ready (context window 8192 tokens, from /api/show (test.context_length))\n",
    );
    expect(r.stdout).toContain("The scout saw nothing odd.");
    const sent = server.requests.slice(before);
    expect(sent.map((b) => b.model)).toEqual(["test-model", "other-model", "other-model", "other-model"]);
    expect(systemOf(sent[1]!)).not.toContain('You are the agent "scout"');
    expect(server.remaining()).toBe(0);
  });
});

describe("/policy", () => {
  it("prints each rule with its conditions, never a bare tool and decision (issue 30)", async () => {
    const ws = await tempWorkspace({
      ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n`,
      "rules.toml":
        'default = "ask"\n\n[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = ["git status", "ls"] }\n\n[[rules]]\ntool = "*"\ndecision = "deny"\nrisk = "high"\nmessage = "no"\n',
    });
    const r = await toolgate(["chat", "--policy", "rules.toml"], { cwd: ws, input: "/policy\n" });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toContain(
      [
        `policy: ${ws}/rules.toml; default ask; 2 rule(s)`,
        '  rules.toml#1 (line 3): tool = "shell", decision = "allow", when.command = { prefix = ["git status", "ls"] }',
        '  rules.toml#2 (line 8): tool = "*", decision = "deny", risk = "high", message = "no" — every call of the tool',
        "",
      ].join("\n"),
    );
    const builtin = await toolgate(["chat"], { cwd: ws, input: "/policy\n" });
    expect(builtin.stdout).toContain(
      '  builtin#read-only: tool = "*", decision = "allow", kind = ["read", "search", "think"]\n',
    );
    expect(builtin.stdout).toContain(
      `  builtin#sensitive-read: tool = "read_file", decision = "ask", when.path = { glob = [".env*", ".envrc", ".netrc", ".npmrc", ".pypirc", "*.pem", … ${DEFAULT_READ_ASK_PATTERNS.length - 6} more] }\n`,
    );
  });
});
