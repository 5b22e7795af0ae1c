/**
 * Both providers against a local server speaking their real wire formats: recorded fixtures, streamed
 * pieces, tool-call deltas, errors, unreachable servers, unknown models, cancellation.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "./errors.js";
import { createChatModel, type LlmConfig, resolveLlmSettings } from "./index.js";
import { fixture, type ModelServer, startModelServer } from "./testdata/model-server.js";
import type { ChatMessage, ChatModel } from "./types.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["qwen3", "gpt-4o-mini"]);
});
afterAll(async () => server.close());

const ollama = (model = "qwen3"): ChatModel =>
  createChatModel({ provider: "ollama", model, baseUrl: server.url, maxRetries: 0 });
const openai = (model = "gpt-4o-mini", apiKey?: string): ChatModel =>
  createChatModel({
    provider: "openai",
    model,
    baseUrl: server.openaiUrl,
    maxRetries: 0,
    ...(apiKey ? { apiKey } : {}),
  });

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error("expected a failure");
}

const conversation: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read README.md" },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c7", name: "read_file", arguments: { path: "README.md" } }],
  },
  { role: "tool", content: "hello", toolCallId: "c7", name: "read_file" },
];
const tools = [{ type: "function", function: { name: "read_file", description: "Reads", parameters: {} } }];

describe("ollama /api/chat", () => {
  it("reads a recorded tool-call reply: thinking streamed separately, arguments as objects", async () => {
    server.push({ raw: fixture("ollama-tool-call.ndjson") });
    const thought: string[] = [];
    const reply = await ollama().chat({ messages: conversation, tools, onThinking: (t) => thought.push(t) });
    expect(reply.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{12}$/),
        name: "read_file",
        arguments: { path: "README.md" },
      },
    ]);
    expect(reply.thinking).toBe("The user wants the README. I will read it.");
    expect(thought).toEqual(["The user wants the README. ", "I will read it."]);
    expect(reply.text).toBe("");
    expect(reply.finishReason).toBe("stop");
  });

  it("sends the conversation in Ollama's shape: tool_calls objects, tool messages by tool_name", async () => {
    server.push({ raw: fixture("ollama-text.ndjson") });
    const chunks: string[] = [];
    const reply = await ollama().chat({ messages: conversation, tools, onText: (t) => chunks.push(t) });
    expect(reply.text).toBe("The README says hello.");
    expect(chunks).toEqual(["The README", " says hello."]);
    const body = server.requests.at(-1)!;
    expect(body.stream).toBe(true);
    expect(body.tools).toEqual(tools);
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read README.md" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ function: { name: "read_file", arguments: { path: "README.md" } } }],
      },
      { role: "tool", content: "hello", tool_name: "read_file" },
    ]);
  });

  it("reports an error inside the stream as one line", async () => {
    server.push({ raw: fixture("ollama-stream-error.ndjson") });
    const error = await failure(ollama().chat({ messages: conversation }));
    expect(error.message).toBe(
      `Ollama at ${server.url} reported an error in its reply: an error was encountered while running the model: unexpected EOF`,
    );
  });

  it("says which model to pull", async () => {
    const error = await failure(ollama("llama9").chat({ messages: conversation }));
    expect(error.kind).toBe("model_not_found");
    expect(error.message).toBe("model llama9 not found — run `ollama pull llama9`");
  });

  it("says to start Ollama when nothing listens", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const model = createChatModel({ provider: "ollama", model: "qwen3", baseUrl: url, maxRetries: 0 });
    const error = await failure(model.chat({ messages: conversation }));
    expect(error.message).toBe(
      `cannot reach Ollama at ${url} — start it with \`ollama serve\` (or set [llm] base_url / --base-url)`,
    );
  });

  it("cancels a reply that never finishes", async () => {
    server.push({ hang: true });
    const controller = new AbortController();
    const pending = ollama().chat({ messages: conversation, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).kind).toBe("cancelled");
  });
});

describe("OpenAI-compatible /v1/chat/completions", () => {
  it("assembles parallel tool calls from recorded deltas by index", async () => {
    server.push({ raw: fixture("openai-parallel-tools.sse") });
    const reply = await openai().chat({ messages: conversation, tools });
    expect(reply.toolCalls).toEqual([
      { id: "call_abc", name: "read_file", arguments: { path: "a.txt" } },
      { id: "call_def", name: "read_file", arguments: { path: "b.txt" } },
    ]);
    expect(reply.finishReason).toBe("tool_calls");
  });

  it("keeps reasoning_content apart from the text", async () => {
    server.push({ raw: fixture("openai-reasoning-text.sse") });
    const chunks: string[] = [];
    const reply = await openai().chat({ messages: conversation, onText: (t) => chunks.push(t) });
    expect(reply).toEqual({
      text: "a.txt says A; b.txt says B.",
      toolCalls: [],
      thinking: "Both files are short.",
      finishReason: "stop",
    });
    expect(chunks).toEqual(["a.txt says A; ", "b.txt says B."]);
  });

  it("sends tool calls with JSON-string arguments and tool messages by tool_call_id", async () => {
    server.push({ toolCalls: [{ name: "grep", arguments: { pattern: "TODO", caseSensitive: false } }] });
    const reply = await openai("gpt-4o-mini", "sk-test").chat({ messages: conversation, tools });
    expect(reply.toolCalls).toEqual([
      { id: "call_0_x", name: "grep", arguments: { pattern: "TODO", caseSensitive: false } },
    ]);
    const body = server.requests.at(-1)!;
    expect(body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "c7", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } },
        ],
      },
      { role: "tool", content: "hello", tool_call_id: "c7" },
    ]);
  });

  it("keeps unparsable argument text as text (validation reports it later)", async () => {
    server.push({ toolCalls: [{ name: "grep", arguments: '{"pattern": "x"' }] });
    const reply = await openai().chat({ messages: conversation, tools });
    expect(reply.toolCalls[0]!.arguments).toBe('{"pattern": "x"');
  });

  it("maps errors to one line: unknown model, refused key, server failure, nothing listening", async () => {
    expect((await failure(openai("gpt-9").chat({ messages: conversation }))).message).toBe(
      `model gpt-9 not found at ${server.openaiUrl} — check [llm] model / --model`,
    );
    server.push({ error: { status: 401, message: "Incorrect API key provided" } });
    expect((await failure(openai().chat({ messages: conversation }))).message).toBe(
      "the model server refused the request (401): Incorrect API key provided — set [llm] api_key_env to the name of the variable holding the key",
    );
    server.push({ error: { status: 500, message: "boom" } });
    expect((await failure(openai().chat({ messages: conversation }))).message).toBe(
      "the model server failed (500): boom",
    );
    const url = `http://127.0.0.1:${await deadPort()}/v1`;
    const dead = createChatModel({ provider: "openai", model: "m", baseUrl: url, maxRetries: 0 });
    expect((await failure(dead.chat({ messages: conversation }))).message).toBe(
      `cannot reach the model server at ${url} — start it, or set [llm] base_url / --base-url`,
    );
  });

  it("cancels a reply that never finishes", async () => {
    server.push({ hang: true });
    const controller = new AbortController();
    const pending = openai().chat({ messages: conversation, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).kind).toBe("cancelled");
  });
});

describe("settings", () => {
  it("takes config, then flags; the key only from the named variable", () => {
    expect(resolveLlmSettings(undefined, {}, {})).toEqual({
      provider: "ollama",
      model: "qwen3",
      baseUrl: "http://127.0.0.1:11434",
    });
    const config = {
      provider: "openai" as const,
      baseUrl: "http://h:8080/v1/",
      model: "m",
      apiKeyEnv: "MY_KEY",
    };
    expect(resolveLlmSettings(config, { model: "n" }, { MY_KEY: "k" })).toEqual({
      provider: "openai",
      model: "n",
      baseUrl: "http://h:8080/v1",
      apiKey: "k",
      apiKeyEnv: "MY_KEY",
    });
  });

  it.each([
    ["gpu-box", "http://gpu-box:11434"],
    ["gpu-box:11500", "http://gpu-box:11500"],
    ["0.0.0.0", "http://127.0.0.1:11434"],
    ["https://ollama.example/", "https://ollama.example"],
    ["  ", "http://127.0.0.1:11434"],
  ])("reads Ollama's OLLAMA_HOST=%j when neither flags nor config name a server", (host, baseUrl) => {
    expect(resolveLlmSettings(undefined, {}, { OLLAMA_HOST: host }).baseUrl).toBe(baseUrl);
    expect(resolveLlmSettings({ baseUrl: "http://cfg:1" }, {}, { OLLAMA_HOST: host }).baseUrl).toBe(
      "http://cfg:1",
    );
    expect(resolveLlmSettings(undefined, { baseUrl: "http://flag:2" }, { OLLAMA_HOST: host }).baseUrl).toBe(
      "http://flag:2",
    );
  });

  it("reads the [llm] options, flags over config", () => {
    const config = {
      timeoutMs: 5000,
      maxRetries: 0,
      contextWindow: 8192,
      temperature: 0.5,
      maxTokens: 100,
      think: "low",
      keepAlive: "10m",
      toolChoice: "auto" as const,
      parallelToolCalls: false,
    };
    expect(
      resolveLlmSettings(config, { temperature: "0", think: "false", contextWindow: "4096" }, {}),
    ).toEqual({
      provider: "ollama",
      model: "qwen3",
      baseUrl: "http://127.0.0.1:11434",
      timeoutMs: 5000,
      maxRetries: 0,
      contextWindow: 4096,
      options: {
        temperature: 0,
        maxTokens: 100,
        think: false,
        keepAlive: "10m",
        toolChoice: "auto",
        parallelToolCalls: false,
      },
    });
  });

  it.each([
    [{ provider: "claude" }, {}, {}, 'unknown model provider "claude": use "ollama", "openai" or "local"'],
    [
      { provider: "openai", baseUrl: "http://h/v1" },
      {},
      {},
      'no model is set: add `model = "..."` under [llm] in .toolgate/config.toml, or pass --model',
    ],
    [
      { apiKeyEnv: "K" },
      {},
      {},
      "the API key is missing: set the environment variable K ([llm] api_key_env)",
    ],
    [{}, { baseUrl: "ftp://x" }, {}, 'the model server address "ftp://x" is not an http(s) URL'],
    [{ temperature: 3 }, {}, {}, "temperature must be a number from 0 to 2, not 3"],
    [{}, { temperature: "warm" }, {}, 'temperature must be a number from 0 to 2, not "warm"'],
    [{}, { maxTokens: "0" }, {}, '--max-tokens must be a whole number ≥ 1, not "0"'],
    [{ timeoutMs: 0 }, {}, {}, "[llm] timeout_ms must be a whole number ≥ 1, not 0"],
    [
      { think: "very" },
      {},
      {},
      'think must be true, false, "low", "medium" or "high", not "very" ([llm] think / --think)',
    ],
    [
      { keepAlive: "forever" },
      {},
      {},
      '[llm] keep_alive must be a duration such as "5m", "30s", "0" or a number of seconds, not "forever"',
    ],
    [
      { provider: "openai", model: "gpt" },
      {},
      { OPENAI_API_KEY: "x" },
      'api.openai.com needs an API key: set [llm] api_key_env = "OPENAI_API_KEY" and export that variable',
    ],
  ])("refuses %j %j with one line", (config, flags, env, message) => {
    // Settings given in code are checked too (a program may pass any object).
    expect(() => resolveLlmSettings(config as LlmConfig, flags, env)).toThrow(message);
  });
});
