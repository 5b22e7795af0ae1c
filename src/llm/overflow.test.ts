/**
 * Each server's refusal of an over-long prompt, in its own words (as the test server plays them, from their
 * sources), is a `context_overflow` with the numbers it gives; other 400s are not.
 */
import { describe, expect, it } from "vitest";
import { ModelError } from "./errors.js";
import { createChatModel } from "./index.js";
import { overflowFacts } from "./overflow.js";
import { startModelServer } from "./testdata/model-server.js";
import { judgePrompt } from "./testdata/prompt-window.js";

const big = { messages: [{ role: "user" as const, content: "x".repeat(40_000) }] };

describe("a refusal of an over-long prompt", () => {
  it.each([
    ["llama.cpp", "openai", { openai: "llama.cpp" }, { promptTokens: 10_004, window: 4096 }],
    ["vLLM", "openai", { openai: "vllm" }, { promptTokens: 10_004, window: 4096 }],
    ["OpenAI", "openai", { openai: "openai" }, { promptTokens: 10_004, window: 4096 }],
    ["Ollama 0.12.6+ (truncate: false)", "ollama", { ollama: "refuse" }, {}],
  ] as const)("%s", (_, api, behaviour, facts) => {
    const judged = judgePrompt(api, { ...big, truncate: false }, 4096, behaviour, (t) =>
      Math.ceil(t.length / 4),
    );
    expect(judged.outcome).toBe("refused");
    expect(overflowFacts(JSON.stringify(judged.refusal!.body))).toEqual(facts);
  });

  it("reads the numbers when Ollama passes llama.cpp's refusal on as its own error text", () => {
    const inner = JSON.stringify({
      error: {
        code: 400,
        message: "request (9001 tokens) exceeds the available context size (8192 tokens), try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 9001,
        n_ctx: 8192,
      },
    });
    expect(overflowFacts(JSON.stringify({ error: inner }))).toEqual({ promptTokens: 9001, window: 8192 });
    // vLLM before its error envelope, counting the completion too: the messages' share is the prompt.
    expect(
      overflowFacts(
        "This model's maximum context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion).",
      ),
    ).toEqual({ promptTokens: 568, window: 6048 });
    expect(overflowFacts("Invalid 'tools' format")).toBeUndefined();
  });

  it.each(["openai", "ollama"] as const)(
    "arrives from the %s wire as a context_overflow ModelError",
    async (p) => {
      const server = await startModelServer(["m"], 1024, {
        behaviour: { openai: "llama.cpp", ollama: "refuse" },
      });
      try {
        const model = createChatModel({
          provider: p,
          model: "m",
          baseUrl: p === "ollama" ? server.url : server.openaiUrl,
          maxRetries: 2,
        });
        const error = await model.chat(big).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ModelError);
        expect((error as ModelError).kind).toBe("context_overflow");
        expect((error as ModelError).status).toBe(400);
        expect((error as ModelError).message).toMatch(/^the prompt did not fit the model's context window/);
        if (p === "openai")
          expect((error as ModelError).overflow).toEqual({ promptTokens: 10_004, window: 1024 });
        // Not retried: the same prompt would be refused again.
        expect(server.prompts).toHaveLength(1);
        // Ollama is told not to cut.
        if (p === "ollama") expect(server.requests[0]!.truncate).toBe(false);
        // A refused request takes no reply from the queue.
        server.push({ text: "fits" });
        expect((await model.chat({ messages: [{ role: "user", content: "hi" }] })).text).toBe("fits");
      } finally {
        await server.close();
      }
    },
  );

  it("inside a 200 stream (older llama.cpp servers) is one too", async () => {
    const server = await startModelServer(["m"]);
    try {
      server.push({ streamError: "the request exceeds the available context size, try increasing it" });
      const model = createChatModel({
        provider: "openai",
        model: "m",
        baseUrl: server.openaiUrl,
        maxRetries: 0,
      });
      const error = (await model
        .chat({ messages: [{ role: "user", content: "hi" }] })
        .catch((e) => e)) as ModelError;
      expect(error.kind).toBe("context_overflow");
    } finally {
      await server.close();
    }
  });
});
