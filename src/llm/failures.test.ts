/**
 * How both providers fail and recover against a local server speaking each wire format exactly: a silent
 * server and `timeout_ms`, a stall or a reset in the middle of a reply, a stream without its terminal chunk,
 * `length`, an error object inside a 200 stream, a non-streamed JSON body, 429 with `Retry-After`, 5xx and
 * resets before any output retried, token usage, `[llm]` options on the wire, and the start-up check.
 */
import { createServer } from "node:net";
import { describe, expect, it, type OnTestFinishedHandler } from "vitest";
import { ModelError } from "./errors.js";
import { createChatModel } from "./index.js";
import { type ModelServer, startModelServer } from "./testdata/model-server.js";
import type { ChatMessage, ChatModel, LlmSettings } from "./types.js";

type Provider = "ollama" | "openai";

/**
 * A model server of the test's own, closed when the test ends: the tests run at once (most of their time is
 * a time-out or a retry's wait on the clock), so each one's scripted replies and requests must be its own.
 */
async function serverFor(p: Provider, onTestFinished: (fn: OnTestFinishedHandler) => void) {
  const server: ModelServer = await startModelServer(["m"], 32768);
  onTestFinished(() => server.close());
  const base = p === "ollama" ? server.url : server.openaiUrl;
  const name = p === "ollama" ? `Ollama at ${server.url}` : `the model server at ${server.openaiUrl}`;
  const model = (extra: Partial<LlmSettings> = {}): ChatModel =>
    createChatModel({ provider: p, model: "m", baseUrl: base, maxRetries: 0, ...extra });
  return { server, base, name, model };
}
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

describe.concurrent.each(["ollama", "openai"] as const)("%s failures", (p) => {
  it("a server that accepts and never answers fails after timeout_ms, without a retry", async ({
    onTestFinished,
  }) => {
    const { server, base, model } = await serverFor(p, onTestFinished);
    server.push({ silent: true });
    const retries: unknown[] = [];
    const error = await failure(
      model({ timeoutMs: 1000, maxRetries: 2 }).chat({ messages, onRetry: (r) => retries.push(r) }),
    );
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe(`the model server at ${base} sent nothing for 1 s ([llm] timeout_ms)`);
    expect(retries).toEqual([]);
  });

  it("a stall in the middle of the reply is incomplete, with the partial text kept", async ({
    onTestFinished,
  }) => {
    const { server, base, model } = await serverFor(p, onTestFinished);
    server.push({ text, stallAt: 0.6 });
    const streamed: string[] = [];
    // Long enough that a busy machine delivers the first part in time (this process serves and reads both).
    const error = await failure(
      model({ timeoutMs: 4000 }).chat({ messages, onText: (t) => streamed.push(t) }),
    );
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(
      `the model server at ${base} sent nothing for 4 s ([llm] timeout_ms), in the middle of the reply`,
    );
    expect(error.partial?.text).toBe(streamed.join(""));
    expect(text.startsWith(error.partial!.text)).toBe(true);
    expect(error.partial!.text.length).toBeGreaterThan(0);
  });

  it("a connection reset mid-reply says so and when, is incomplete and is not retried", async ({
    onTestFinished,
  }) => {
    const { server, base, model } = await serverFor(p, onTestFinished);
    server.push({ text, cutAt: 0.6 }, { text: "never sent" });
    const before = server.requests.length;
    const error = await failure(model({ maxRetries: 2 }).chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toMatch(
      new RegExp(
        `^the connection to ${base.replace(/[./]/g, "\\$&")} was reset after \\d+\\.\\d s, in the middle of the reply$`,
      ),
    );
    expect(text.startsWith(error.partial!.text)).toBe(true);
    expect(server.requests.length - before).toBe(1);
    expect(server.remaining()).toBe(1);
    server.push({ text: "drain" });
    await model().chat({ messages });
    await model().chat({ messages });
  });

  it("a stream that ends without its terminal chunk is incomplete", async ({ onTestFinished }) => {
    const { server, name, model } = await serverFor(p, onTestFinished);
    server.push({ text, noTerminal: true });
    const error = await failure(model().chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(`the reply from ${name} ended before it finished (no final chunk)`);
    expect(error.partial?.text).toBe(text);
  });

  it('"length" is incomplete, not an answer', async ({ onTestFinished }) => {
    const { server, name, model } = await serverFor(p, onTestFinished);
    server.push({ text, finishReason: "length" });
    const error = await failure(model().chat({ messages }));
    expect(error.kind).toBe("incomplete");
    expect(error.message).toBe(
      `the reply from ${name} was cut at the token limit (finish reason "length") — raise [llm] max_tokens or context_window`,
    );
    expect(error.partial?.text).toBe(text);
  });

  it("an error object inside a 200 stream is an error, with what came before kept", async ({
    onTestFinished,
  }) => {
    const { server, name, model } = await serverFor(p, onTestFinished);
    server.push({ text, streamError: "CUDA out of memory" });
    const error = await failure(model().chat({ messages }));
    expect(error.kind).toBe("server");
    expect(error.message).toBe(`${name} reported an error in its reply: CUDA out of memory`);
    expect(error.partial?.text).toBe(text);
  });

  it("accepts one JSON body from a server that ignores stream: true", async ({ onTestFinished }) => {
    const { server, model } = await serverFor(p, onTestFinished);
    server.push({
      whole: true,
      text,
      toolCalls: [{ name: "read_file", arguments: { path: "a" } }],
      usage: { prompt: 50, completion: 7 },
    });
    const streamed: string[] = [];
    const reply = await model().chat({ messages, onText: (t) => streamed.push(t) });
    expect(reply.text).toBe(text);
    expect(streamed.join("")).toBe(text);
    expect(reply.toolCalls).toEqual([
      { id: expect.any(String), name: "read_file", arguments: { path: "a" } },
    ]);
    expect(reply.usage).toEqual({ promptTokens: 50, completionTokens: 7 });
  });

  it("reads token usage from the stream", async ({ onTestFinished }) => {
    const { server, model } = await serverFor(p, onTestFinished);
    server.push({ text, usage: { prompt: 1234, completion: 56 } });
    const reply = await model().chat({ messages });
    expect(reply.usage).toEqual({ promptTokens: 1234, completionTokens: 56 });
    if (p === "openai") expect(server.requests.at(-1)!.stream_options).toEqual({ include_usage: true });
  });

  it("retries a 429 after its Retry-After, then answers", async ({ onTestFinished }) => {
    const { server, model } = await serverFor(p, onTestFinished);
    server.push(
      { error: { status: 429, message: "slow down" }, headers: { "retry-after": "1" } },
      { text: "after the wait" },
    );
    const retries: { attempt: number; delayMs: number; reason: string }[] = [];
    const reply = await model({ maxRetries: 2 }).chat({ messages, onRetry: (r) => retries.push(r) });
    expect(reply.text).toBe("after the wait");
    expect(retries).toEqual([
      { attempt: 1, delayMs: 1000, reason: "the model server is rate-limiting requests (429): slow down" },
    ]);
  });

  it("retries 5xx and a reset before any output up to max_retries, then gives up with the last error", async ({
    onTestFinished,
  }) => {
    const { server, model } = await serverFor(p, onTestFinished);
    server.push({ error: { status: 503, message: "loading" } }, { reset: true }, { text: "third time" });
    const reply = await model({ maxRetries: 2 }).chat({ messages });
    expect(reply.text).toBe("third time");
    server.push(
      { error: { status: 502, message: "bad gateway" } },
      { error: { status: 500, message: "boom" } },
    );
    const error = await failure(model({ maxRetries: 1 }).chat({ messages }));
    expect(error.message).toBe("the model server failed (500): boom");
    server.push({ reset: true });
    const reset = await failure(model().chat({ messages }));
    expect(reset.kind).toBe("connection_reset");
    expect(reset.message).toMatch(/^the connection to .* was reset after \d+\.\d s$/);
  });

  it("does not retry a refused key or an unknown model", async ({ onTestFinished }) => {
    const { server, base, model } = await serverFor(p, onTestFinished);
    server.push({ error: { status: 401, message: "no" } }, { text: "unused" });
    expect((await failure(model({ maxRetries: 2 }).chat({ messages }))).kind).toBe("auth");
    expect(server.remaining()).toBe(1);
    await model().chat({ messages });
    const missing = createChatModel({ provider: p, model: "nope", baseUrl: base });
    expect((await failure(missing.chat({ messages }))).kind).toBe("model_not_found");
  });

  it("checks the server and the model before the first task", async ({ onTestFinished }) => {
    const { server, base, model } = await serverFor(p, onTestFinished);
    // What the server states (Ollama: the architecture's maximum); `[llm] context_window` is applied later.
    expect(await model().probe()).toEqual(
      p === "ollama"
        ? { ok: true, window: { tokens: 32768, source: "/api/show (test.context_length)", maximum: true } }
        : { ok: true },
    );
    const missing = await createChatModel({ provider: p, model: "nope", baseUrl: base }).probe();
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

describe.concurrent("[llm] options on the wire", () => {
  const options = {
    temperature: 0.2,
    maxTokens: 500,
    think: "high" as const,
    keepAlive: "10m",
    toolChoice: "required" as const,
    parallelToolCalls: false,
  };
  const tools = [{ type: "function", function: { name: "read_file", parameters: {} } }];

  it("Ollama: options.temperature / num_predict / num_ctx, think, keep_alive", async ({ onTestFinished }) => {
    const { server, model } = await serverFor("ollama", onTestFinished);
    server.push({ text: "ok" });
    await model({ options, contextWindow: 8192 }).chat({ messages, tools });
    const body = server.requests.at(-1)!;
    expect(body.options).toEqual({ temperature: 0.2, num_predict: 500, num_ctx: 8192 });
    // A prompt over num_ctx is refused rather than cut (Ollama 0.12.6 and later).
    expect(body.truncate).toBe(false);
    expect(body.think).toBe("high");
    expect(body.keep_alive).toBe("10m");
    expect(body.tool_choice).toBeUndefined();
  });

  it("OpenAI: temperature, max_tokens, reasoning_effort, tool_choice, parallel_tool_calls", async ({
    onTestFinished,
  }) => {
    const { server, model } = await serverFor("openai", onTestFinished);
    server.push({ text: "ok" });
    await model({ options }).chat({ messages, tools });
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
