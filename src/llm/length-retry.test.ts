/**
 * The `length` retry, through the real `toolgate run` against a local server in each wire format: a reply cut
 * at the token limit after a complete tool call is asked for once more with twice the budget (Ollama
 * `options.num_predict`, OpenAI `max_tokens`) and the turn goes on; a cut reply without a complete call, or a
 * second cut, stays `incomplete` with exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { type ChatBody, type ModelServer, startModelServer } from "./testdata/model-server.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => server.close());

type Provider = "ollama" | "openai";

/** The reply budget a request asked for, in its own wire format. */
function budgetOf(provider: Provider, body: ChatBody): unknown {
  return provider === "ollama"
    ? (body.options as { num_predict?: number } | undefined)?.num_predict
    : body.max_tokens;
}

async function workspace(provider: Provider, maxTokens?: number): Promise<string> {
  const base = provider === "ollama" ? server.url : server.openaiUrl;
  return tempWorkspace({
    ".toolgate/config.toml": `[llm]\nprovider = "${provider}"\nbase_url = "${base}"\nmodel = "test-model"\nmax_retries = 0\n${maxTokens ? `max_tokens = ${maxTokens}\n` : ""}`,
    ".toolgate/policy.toml": '[[rules]]\ntool = "read_file"\ndecision = "allow"\n',
    "notes.txt": "the secret word is heron\n",
  });
}

const readNotes = { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };

async function run(
  ws: string,
): Promise<{ code: number | null; out: Record<string, unknown>; stderr: string }> {
  const r = await toolgate(["run", "--workspace", ws, "--json", "what is the secret word?"]);
  return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
}

describe.each(["ollama", "openai"] as const)("%s: a reply cut at the token limit", (provider) => {
  it("with a complete tool call is asked again once with twice [llm] max_tokens, and the turn finishes", async () => {
    const ws = await workspace(provider, 300);
    const before = server.requests.length;
    server.push({ ...readNotes, finishReason: "length" }, readNotes, { text: "The word is heron." });
    const r = await run(ws);
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({
      answer: "The word is heron.",
      stopReason: "answer",
      calls: [{ name: "read_file", ok: true }],
    });
    const sent = server.requests.slice(before);
    expect(sent.map((b) => budgetOf(provider, b))).toEqual([300, 600, 300]);
    // The retry repeats the same request: only the budget differs.
    expect(sent[1]!.messages).toEqual(sent[0]!.messages);
  });

  it("without [llm] max_tokens, the new budget is twice the tokens the server counted, and it says so", async () => {
    const ws = await workspace(provider);
    const before = server.requests.length;
    server.push({ ...readNotes, finishReason: "length", usage: { prompt: 40, completion: 250 } }, readNotes, {
      text: "heron",
    });
    const r = await toolgate(["run", "--workspace", ws, "what is the secret word?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("heron\n");
    expect(r.stderr).toContain(
      "the reply was cut at the token limit after a complete tool call — asking again with max_tokens 500",
    );
    expect(server.requests.slice(before).map((b) => budgetOf(provider, b))).toEqual([
      undefined,
      500,
      undefined,
    ]);
  });

  it.each([
    ["text only", { text: "The secret word is", finishReason: "length" }],
    [
      "a tool call whose arguments were cut",
      { toolCalls: [{ name: "read_file", arguments: '{"path": "no' }], finishReason: "length" },
    ],
  ])("with %s stays incomplete: exit 1, no second request", async (_, reply) => {
    const ws = await workspace(provider, 300);
    const before = server.requests.length;
    server.push(reply);
    const r = await run(ws);
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({
      answer: null,
      stopReason: "incomplete",
      errorKind: "incomplete",
      calls: [],
    });
    expect(String(r.out.error)).toContain('was cut at the token limit (finish reason "length")');
    expect(server.requests.length - before).toBe(1);
    expect(server.remaining()).toBe(0);
  });

  it("cut again after the retry stays incomplete: exit 1, one retry only", async () => {
    const ws = await workspace(provider, 300);
    const before = server.requests.length;
    server.push({ ...readNotes, finishReason: "length" }, { ...readNotes, finishReason: "length" });
    const r = await run(ws);
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ stopReason: "incomplete", calls: [] });
    expect(server.requests.slice(before).map((b) => budgetOf(provider, b))).toEqual([300, 600]);
    expect(server.remaining()).toBe(0);
  });
});
