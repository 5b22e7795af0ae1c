/**
 * How both providers fail and recover against a local server speaking each wire format exactly: a silent
 * server and `timeout_ms`, a stall or a reset in the middle of a reply, a stream without its terminal chunk,
 * `length`, an error object inside a 200 stream, a non-streamed JSON body, 429 with `Retry-After`, 5xx and
 * resets before any output retried, token usage, `[llm]` options on the wire, and the start-up check.
 */
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "./errors.js";
import { createChatModel } from "./index.js";
import { type ModelServer, startModelServer } from "./testdata/model-server.js";
import type { ChatMessage, ChatModel, LlmSettings } from "./types.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["m"], 32768);
});
afterAll(async () => server.close());
// A test that failed part-way leaves replies queued: they must not become the next test's replies.
afterEach(() => server.clear());

type Provider = "ollama" | "openai";
const baseOf = (p: Provider) => (p === "ollama" ? server.url : server.openaiUrl);
const nameOf = (p: Provider) =>
  p === "ollama" ? `Ollama at ${server.url}` : `the model server at ${server.openaiUrl}`;
const model = (p: Provider, extra: Partial<LlmSettings> = {}): ChatModel =>
  createChatModel({ provider: p, model: "m", baseUrl: baseOf(p), maxRetries: 0, ...extra });
const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
const text = "The answer is forty-two, as everyone knows by now.";

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error("expected a failure");
}

describe.each(["ollama", "openai"] as const)("%s failures", (p) => {
  it("a server that accepts and never answers fails after timeout_ms, without a retry", async () => {
    server.push({ silent: true });
    const retries: unknown[] = [];
    const error = await failure(
      model(p, { timeoutMs: 1000, maxRetries: 2 }).chat({ messages, onRetry: (r) => retries.push(r) }),
    );
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(`the model server at ${baseOf(p)} sent nothing for 1 s ([llm] timeout_ms)`);
    expect(retries).toEqual([]);
  });

  it("a stall in the middle of the reply is incomplete, with the partial text kept", async () => {
    server.push({ text, stallAt: 0.6 });
    const streamed: string[] = [];
    const error = await failure(
      model(p, { timeoutMs: 1000 }).chat({ messages, onText: (t) => streamed.push(t) }),
    );
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(
      `the model server at ${baseOf(p)} sent nothing for 1 s ([llm] timeout_ms), in the middle of the reply`,
    );
    expect(error.partial?.text).toBe(streamed.join(""));
    expect(text.startsWith(error.partial!.text)).toBe(true);
    expect(error.partial!.text.length).toBeGreaterThan(0);
  });

  it("a connection reset mid-reply says so and when, is incomplete and is not retried", async () => {
    server.push({ text, cutAt: 0.6 }, { text: "never sent" });
    const before = server.requests.length;
    const error = await failure(model(p, { maxRetries: 2 }).chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toMatch(
      new RegExp(
        `^the connection to ${baseOf(p).replace(/[./]/g, "\\$&")} was reset after \\d+\\.\\d s, in the middle of the reply$`,
      ),
    );
    expect(text.startsWith(error.partial!.text)).toBe(true);
    expect(server.requests.length - before).toBe(1);
    expect(server.remaining()).toBe(1);
    server.push({ text: "drain" });
    await model(p).chat({ messages });
    await model(p).chat({ messages });
  });

  it("a stream that ends without its terminal chunk is incomplete", async () => {
    server.push({ text, noTerminal: true });
    const error = await failure(model(p).chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(`the reply from ${nameOf(p)} ended before it finished (no final chunk)`);
    expect(error.partial?.text).toBe(text);
  });

  it('"length" is incomplete, not an answer', async () => {
    server.push({ text, finishReason: "length" });
    const error = await failure(model(p).chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(
      `the reply from ${nameOf(p)} was cut at the token limit (finish reason "length") — raise [llm] max_tokens or context_window`,
    );
    expect(error.partial?.text).toBe(text);
  });

  it("an error object inside a 200 stream is an error, with what came before kept", async () => {
    server.push({ text, streamError: "CUDA out of memory" });
    const error = await failure(model(p).chat({ messages }));
    expect(error.kind).toBe("server");
    expect(error.message).toBe(`${nameOf(p)} reported an error in its reply: CUDA out of memory`);
    expect(error.partial?.text).toBe(text);
  });

  it("accepts one JSON body from a server that ignores stream: true", async () => {
    server.push({
      whole: true,
      text,
      toolCalls: [{ name: "read_file", arguments: { path: "a" } }],
      usage: { prompt: 50, completion: 7 },
    });
    const streamed: string[] = [];
    const reply = await model(p).chat({ messages, onText: (t) => streamed.push(t) });
    expect(reply.text).toBe(text);
    expect(streamed.join("")).toBe(text);
    expect(reply.toolCalls).toEqual([
      { id: expect.any(String), name: "read_file", arguments: { path: "a" } },
    ]);
    expect(reply.usage).toEqual({ promptTokens: 50, completionTokens: 7 });
  });

  it("reads token usage from the stream", async () => {
    server.push({ text, usage: { prompt: 1234, completion: 56 } });
    const reply = await model(p).chat({ messages });
    expect(reply.usage).toEqual({ promptTokens: 1234, completionTokens: 56 });
    if (p === "openai") expect(server.requests.at(-1)!.stream_options).toEqual({ include_usage: true });
  });

  it("retries a 429 after its Retry-After, then answers", async () => {
    server.push(
      { error: { status: 429, message: "slow down" }, headers: { "retry-after": "1" } },
      { text: "after the wait" },
    );
    const retries: { attempt: number; delayMs: number; reason: string }[] = [];
    const reply = await model(p, { maxRetries: 2 }).chat({ messages, onRetry: (r) => retries.push(r) });
    expect(reply.text).toBe("after the wait");
    expect(retries).toEqual([
      { attempt: 1, delayMs: 1000, reason: "the model server is rate-limiting requests (429): slow down" },
    ]);
  });

  it("retries 5xx and a reset before any output up to max_retries, then gives up with the last error", async () => {
    server.push({ error: { status: 503, message: "loading" } }, { reset: true }, { text: "third time" });
    const reply = await model(p, { maxRetries: 2 }).chat({ messages });
    expect(reply.text).toBe("third time");
    server.push(
      { error: { status: 502, message: "bad gateway" } },
      { error: { status: 500, message: "boom" } },
    );
    const error = await failure(model(p, { maxRetries: 1 }).chat({ messages }));
    expect(error.message).toBe("the model server failed (500): boom");
    server.push({ reset: true });
    const reset = await failure(model(p).chat({ messages }));
    expect(reset.kind).toBe("connection_reset");
    expect(reset.message).toMatch(/^the connection to .* was reset after \d+\.\d s$/);
  });

  it("does not retry a refused key or an unknown model", async () => {
    server.push({ error: { status: 401, message: "no" } }, { text: "unused" });
    expect((await failure(model(p, { maxRetries: 2 }).chat({ messages }))).kind).toBe("auth");
    expect(server.remaining()).toBe(1);
    await model(p).chat({ messages });
    const missing = createChatModel({ provider: p, model: "nope", baseUrl: baseOf(p) });
    expect((await failure(missing.chat({ messages }))).kind).toBe("model_not_found");
  });

  it("checks the server and the model before the first task", async () => {
    // What the server states (Ollama: the architecture's maximum); `[llm] context_window` is applied later.
    expect(await model(p).probe()).toEqual(
      p === "ollama"
        ? { ok: true, window: { tokens: 32768, source: "/api/show (test.context_length)", maximum: true } }
        : { ok: true },
    );
    const missing = await createChatModel({ provider: p, model: "nope", baseUrl: baseOf(p) }).probe();
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.error.kind).toBe("model_not_found");
      expect(missing.error.message).toBe(
        p === "ollama"
          ? "model nope not found — run `ollama pull nope`"
          : `model nope not found at ${server.openaiUrl} — check [llm] model / --model`,
      );
    }
    const url = `http://127.0.0.1:${await deadPort()}${p === "openai" ? "/v1" : ""}`;
    const dead = await createChatModel({ provider: p, model: "m", baseUrl: url, maxRetries: 0 }).probe();
    expect(dead.ok === false && dead.error.kind).toBe("unreachable");
  });
});

describe("[llm] options on the wire", () => {
  const options = {
    temperature: 0.2,
    maxTokens: 500,
    think: "high" as const,
    keepAlive: "10m",
    toolChoice: "required" as const,
    parallelToolCalls: false,
  };
  const tools = [{ type: "function", function: { name: "read_file", parameters: {} } }];

  it("Ollama: options.temperature / num_predict / num_ctx, think, keep_alive", async () => {
    server.push({ text: "ok" });
    await model("ollama", { options, contextWindow: 8192 }).chat({ messages, tools });
    const body = server.requests.at(-1)!;
    expect(body.options).toEqual({ temperature: 0.2, num_predict: 500, num_ctx: 8192 });
    // A prompt over num_ctx is refused rather than cut (Ollama 0.12.6 and later).
    expect(body.truncate).toBe(false);
    expect(body.think).toBe("high");
    expect(body.keep_alive).toBe("10m");
    expect(body.tool_choice).toBeUndefined();
  });

  it("OpenAI: temperature, max_tokens, reasoning_effort, tool_choice, parallel_tool_calls", async () => {
    server.push({ text: "ok" });
    await model("openai", { options }).chat({ messages, tools });
    const body = server.requests.at(-1)!;
    expect(body).toMatchObject({
      temperature: 0.2,
      max_tokens: 500,
      reasoning_effort: "high",
      tool_choice: "required",
      parallel_tool_calls: false,
    });
    expect(body.keep_alive).toBeUndefined();
    expect(body.options).toBeUndefined();
  });
});

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
