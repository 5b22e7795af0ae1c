/**
 * The banner's model line: ready with the window the session keeps to and where it came from, or unknown
 * with what to set; a configured window over what the server holds is lowered and says so.
 */
import { describe, expect, it } from "vitest";
import type { ChatModel, ModelProbe } from "../../llm/index.js";
import { probeModel } from "./model-probe.js";

/** A model whose probe answers `probe` (nothing else is called). */
function answering(probe: ModelProbe): ChatModel {
  return {
    provider: "openai",
    model: "m",
    baseUrl: "http://127.0.0.1:8080/v1",
    schemaProvider: "openai",
    chat: () => Promise.reject(new Error("not called")),
    probe: async () => probe,
  };
}

describe("the banner's model line", () => {
  it.each([
    [
      "a window the server states",
      { ok: true, window: { tokens: 4096, source: "/props (n_ctx, llama.cpp)" } },
      undefined,
      "model: ready (context window 4096 tokens, from /props (n_ctx, llama.cpp))",
      4096,
    ],
    [
      "[llm] context_window",
      { ok: true },
      8192,
      "model: ready (context window 8192 tokens, from [llm] context_window)",
      8192,
    ],
    [
      "a configured window over what the server holds",
      { ok: true, window: { tokens: 4096, source: "/models (max_model_len, vLLM)" } },
      16_384,
      "model: ready (context window 4096 tokens, from /models (max_model_len, vLLM), which is less than [llm] context_window 16384)",
      4096,
    ],
    [
      "no window anywhere",
      { ok: true },
      undefined,
      "model: ready (context window unknown: set [llm] context_window to keep the conversation inside it)",
      undefined,
    ],
  ] as const)("%s", async (_, probe, contextWindow, line, tokens) => {
    const status = await probeModel(answering(probe as ModelProbe), {
      provider: "openai",
      ...(contextWindow ? { contextWindow } : {}),
    });
    expect(status.line).toBe(line);
    expect(status.window?.tokens).toBe(tokens);
  });
});
