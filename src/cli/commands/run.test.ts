/**
 * `toolgate run` and `toolgate replay` as plain functions over a real gate, a real workspace with
 * `.toolgate/config.toml` pointing `[llm]` at a local model server: answer on stdout, progress on stderr,
 * asks refused without `--yes`, JSON output, one-line model errors with exit 2, transcripts replayed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { makeWorkspace, removeWorkspace } from "../../loop/testdata/harness.js";
import { toolgate } from "../../test-support/cli.js";
import { createContext } from "../context.js";
import type { GlobalOptions } from "../globals.js";
import type { CliIo } from "../io.js";
import { runReplay } from "./replay.js";
import { runRun } from "./run.js";

let server: ModelServer;
let root: string;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => server.close());
beforeEach(async () => {
  root = await makeWorkspace({
    ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n`,
  });
  await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
  await writeFile(
    join(root, ".toolgate", "agents", "scout.md"),
    "---\ndescription: Looks around\ntools: []\n---\nLook.\n",
  );
});
afterEach(async () => {
  expect(server.remaining()).toBe(0);
  await removeWorkspace(root);
});

async function cli(
  command: typeof runRun,
  argv: string[],
  globals: Partial<GlobalOptions> = {},
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stdin: new PassThrough(),
    isTTY: false,
    env,
    cwd: root,
  };
  const ctx = createContext(io, { json: false, debug: false, help: false, version: false, ...globals });
  try {
    const code = await command(argv, ctx);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    await ctx.close();
  }
}

const listAgents = { toolCalls: [{ name: "list_available_agents", arguments: {} }] };

describe("toolgate run", () => {
  it("prints the answer on stdout and refuses asks without --yes", async () => {
    server.push(listAgents, (body) => {
      expect(String(body.messages.at(-1)?.content)).toBe(
        "Error (denied_by_policy): list_available_agents was denied: it was not approved: nobody was asked (toolgate run refuses every ask): pass --yes, or add an allow rule to the policy",
      );
      return { text: "I could not list the agents." };
    });
    const r = await cli(runRun, ["list", "the", "agents"]);
    // Answered, but the policy refused a call: exit 3 (issue 30), the answer still on stdout.
    expect(r).toMatchObject({ code: 3, stdout: "I could not list the agents.\n" });
    expect(r.stderr).toContain("✗ list_available_agents · list available agents · ask · ");
    // How to allow it: run never asks on a terminal, so --yes or a rule (issue #11).
    expect(r.stderr).toContain(
      "toolgate: list_available_agents was denied: it was not approved: nobody was asked (toolgate run refuses every ask): pass --yes, or add an allow rule to the policy\n" +
        "  to allow it: pass --yes to approve what the policy asks about (--yes never overrides a deny), or create .toolgate/policy.toml (`toolgate init` writes a starter one) with this rule:\n" +
        '    [[rules]]\n    tool = "list_available_agents"\n    decision = "allow"\n',
    );
  });

  it("approves asks with --yes and prints JSON with --json", async () => {
    server.push(listAgents, (body) => {
      expect(String(body.messages.at(-1)?.content)).toBe("- scout: Looks around");
      return { text: "One agent: scout." };
    });
    const r = await cli(runRun, ["--yes", "list the agents"], { json: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      answer: "One agent: scout.",
      stopReason: "answer",
      steps: 2,
      calls: [{ name: "list_available_agents", decision: "ask", ok: true, error: null }],
      error: null,
    });
    // The transcript it names replays readably.
    const replay = await cli(runReplay, [out.transcript]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(
      "you: list the agents\n→ list_available_agents: list available agents\n  ok · ask",
    );
    expect(replay.stdout).toContain("model: One agent: scout.");
    // No FILE: the newest session.
    expect((await cli(runReplay, [])).stdout).toBe(replay.stdout);
  });

  it("runs as an agent with its resolved tools", async () => {
    server.push((body) => {
      expect(body.tools).toBeUndefined();
      expect(String(body.messages[0]!.content)).toContain('You are the agent "scout"');
      return { text: "nothing to do" };
    });
    expect((await cli(runRun, ["--agent", "scout", "look"])).stdout).toBe("nothing to do\n");
    await expect(cli(runRun, ["--agent", "ghost", "look"])).rejects.toThrow(
      'agent "ghost" is not defined in .toolgate/agents/ (defined: scout)',
    );
  });

  it("says in one line what to do about a missing model (exit 2), and needs a task", async () => {
    const r = await cli(runRun, ["--model", "qwen9", "hello"]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "toolgate: model qwen9 not found — run `ollama pull qwen9`\n",
    });
    await expect(cli(runRun, [])).rejects.toThrow('run needs a task; usage: toolgate run "TASK"');
  });

  it("prints a setup error as JSON with --json (exit 2) and labels its transcript run", async () => {
    const bad = await cli(runRun, ["--agent", "ghost", "look"], { json: true });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toEqual({
      answer: null,
      steps: 0,
      calls: [],
      tokens: {},
      stopReason: "setup_error",
      error: 'agent "ghost" is not defined in .toolgate/agents/ (defined: scout)',
    });
    expect(bad.stderr).toBe('toolgate: agent "ghost" is not defined in .toolgate/agents/ (defined: scout)\n');
    const missing = JSON.parse((await cli(runRun, ["--model", "qwen9", "hello"], { json: true })).stdout);
    expect(missing).toMatchObject({ stopReason: "model_error", errorKind: "model_not_found" });
    server.push({ text: "ok" });
    const ok = JSON.parse((await cli(runRun, ["hello"], { json: true })).stdout);
    expect(ok.transcript).toMatch(/\/\d{8}-\d{6}-run-[0-9a-f]{6}\.jsonl$/);
  });

  it("takes the API key only from the variable [llm] api_key_env names", async () => {
    await writeFile(
      join(root, ".toolgate", "config.toml"),
      `[llm]\nprovider = "openai"\nbase_url = "${server.openaiUrl}"\nmodel = "test-model"\napi_key_env = "TG_TEST_KEY"\n`,
    );
    await expect(cli(runRun, ["hi"])).rejects.toThrow(
      "the API key is missing: set the environment variable TG_TEST_KEY ([llm] api_key_env)",
    );
    server.push({ text: "hello" });
    expect((await cli(runRun, ["hi"], {}, { TG_TEST_KEY: "k1" })).stdout).toBe("hello\n");
  });
});

describe("toolgate run's exit code, through the binary (issue 30)", () => {
  const write = { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x\n" } }] };

  it("is 3 when the task answered but its only write was refused, 0 once it may write", async () => {
    server.push(write, { text: "I could not write out.txt." });
    const refused = await toolgate(["run", "write out.txt", "--quiet"], { cwd: root });
    expect(refused.stdout).toBe("I could not write out.txt.\n");
    expect(refused.stderr).toContain("toolgate: write_file was denied: it was not approved");
    expect(refused.code).toBe(3);
    await expect(readFile(join(root, "out.txt"), "utf8")).rejects.toThrow(/ENOENT/);

    server.push(write, { text: "Wrote out.txt." });
    const allowed = await toolgate(["run", "write out.txt", "--quiet", "--yes"], { cwd: root });
    expect(allowed).toMatchObject({ code: 0, stdout: "Wrote out.txt.\n", stderr: "" });
    expect(await readFile(join(root, "out.txt"), "utf8")).toBe("x\n");
  });
});

describe("toolgate replay", () => {
  it("says when there is nothing to replay", async () => {
    await expect(cli(runReplay, [])).rejects.toThrow(
      `no saved sessions in ${join(root, ".toolgate", "sessions")}`,
    );
    await expect(cli(runReplay, ["nope"])).rejects.toThrow(
      "no transcript nope (looked in the current folder and",
    );
  });

  it.each([
    [
      "a reply cut at the token limit",
      { text: "Half an ans", finishReason: "length" },
      (): string =>
        `the reply from Ollama at ${server.url} was cut at the token limit (finish reason "length") — raise [llm] max_tokens or context_window`,
      "Half an ans",
    ],
    [
      "a stream without its final chunk",
      { text: "Half an ans", noTerminal: true },
      (): string => `the reply from Ollama at ${server.url} ended before it finished (no final chunk)`,
      "Half an ans",
    ],
    ["an empty reply", { text: "" }, (): string => "the model returned an empty reply", undefined],
    [
      "a reply that is only thinking",
      { thinking: "Let me think about it." },
      (): string => "the model only thought and gave no answer (an empty reply after its thinking)",
      "",
    ],
    [
      "a server that goes silent",
      { silent: true },
      (): string => `the model server at ${server.url} sent nothing for 1 s ([llm] timeout_ms)`,
      undefined,
    ],
  ] as const)(
    "%s is not an answer: exit 1, the reason on stderr, what arrived in the transcript",
    async (_, reply, message, partial) => {
      await writeFile(
        join(root, ".toolgate", "config.toml"),
        // Only the silent server is waited out: a 1 s bound on the others could cut a reply on a busy machine.
        `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n${"silent" in reply ? "timeout_ms = 1000\n" : ""}`,
      );
      server.push(reply);
      const r = await cli(runRun, ["write", "a", "poem"], { json: true });
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      const incomplete = !("silent" in reply);
      expect(out).toMatchObject({
        answer: null,
        stopReason: incomplete ? "incomplete" : "model_error",
        error: message(),
        errorKind: incomplete ? "incomplete" : "timeout",
      });
      const records = (await readFile(out.transcript, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const assistant = records.filter((x) => x.type === "message" && x.message.role === "assistant");
      if (partial === undefined) expect(assistant).toEqual([]);
      else expect(assistant.map((x) => x.message.content)).toEqual([partial]);
      expect(records.at(-1)).toMatchObject({ type: "turn_end", stopReason: out.stopReason });
    },
  );
});
