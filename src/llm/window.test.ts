/**
 * Learning the window: what each server states (Ollama's `/api/show`: the Modelfile's `num_ctx`, else the
 * architecture's `context_length`, capped; vLLM's `max_model_len`; llama.cpp's `/props`), `[llm]
 * context_window` over all of them but never above what a server says it holds, and the source named.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatModel } from "./index.js";
import { type ModelServer, startModelServer } from "./testdata/model-server.js";
import type { LlmSettings, ModelProbe } from "./types.js";
import { LEARNED_WINDOW_CAP, resolveContextWindow } from "./window.js";

const servers: Record<string, ModelServer> = {};
beforeAll(async () => {
  servers.ollama = await startModelServer(["qwen3", "tuned-ctx6144"], 40_960);
  servers.vllm = await startModelServer(["m"], 32_768, { behaviour: { openai: "vllm" } });
  servers.llamacpp = await startModelServer(["m"], 8192, { behaviour: { openai: "llama.cpp" } });
  servers.plain = await startModelServer(["m"], 8192);
  // llama.cpp with four slots of 8192, whose listing states the whole context (32768) beside /props.
  servers.slots = await startModelServer(["m"], 8192, {
    behaviour: { openai: "llama.cpp" },
    listing: { meta: { n_ctx_train: 131_072, n_ctx: 32_768 } },
  });
  // A llama.cpp build without /props whose listing states the window.
  servers.listsCtx = await startModelServer(["m"], 8192, {
    listing: { owned_by: "llamacpp", meta: { n_ctx_train: 131_072, n_ctx: 8192 } },
  });
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
});

async function probe(server: string, settings: Partial<LlmSettings> = {}, model = "m"): Promise<ModelProbe> {
  const s = servers[server]!;
  const provider = server === "ollama" ? "ollama" : "openai";
  return createChatModel({
    provider,
    model,
    baseUrl: provider === "ollama" ? s.url : s.openaiUrl,
    maxRetries: 0,
    ...settings,
  }).probe();
}

describe("the window a server states", () => {
  it("Ollama: the architecture's context_length, marked as a maximum", async () => {
    expect(await probe("ollama", {}, "qwen3")).toEqual({
      ok: true,
      window: { tokens: 40_960, source: "/api/show (test.context_length)", maximum: true },
    });
  });

  it("Ollama: a num_ctx the Modelfile sets", async () => {
    expect(await probe("ollama", {}, "tuned-ctx6144")).toEqual({
      ok: true,
      window: { tokens: 6144, source: "/api/show (the model's num_ctx)" },
    });
  });

  it("vLLM: max_model_len in its listing; llama.cpp: n_ctx in /props; others: none", async () => {
    expect(await probe("vllm")).toEqual({
      ok: true,
      window: { tokens: 32_768, source: "/models (max_model_len, vLLM)" },
    });
    expect(await probe("llamacpp")).toEqual({
      ok: true,
      window: { tokens: 8192, source: "/props (n_ctx, llama.cpp)" },
    });
    expect(await probe("plain")).toEqual({ ok: true });
  });

  it("llama.cpp: one slot's n_ctx from /props over a listed meta.n_ctx; that without /props; never n_ctx_train", async () => {
    expect(await probe("slots")).toEqual({
      ok: true,
      window: { tokens: 8192, source: "/props (n_ctx, llama.cpp)" },
    });
    expect(await probe("listsCtx")).toEqual({
      ok: true,
      window: { tokens: 8192, source: "/models (meta.n_ctx, llama.cpp)" },
    });
  });
});

describe("the window a session keeps to", () => {
  const maximum = {
    ok: true as const,
    window: { tokens: 131_072, source: "/api/show (qwen3.context_length)", maximum: true },
  };
  it("caps a model's maximum, and takes a stated window as it is", () => {
    expect(resolveContextWindow({ provider: "ollama" }, maximum)).toEqual({
      tokens: LEARNED_WINDOW_CAP,
      source: `/api/show (qwen3.context_length): 131072, capped at ${LEARNED_WINDOW_CAP}; set [llm] context_window for more`,
    });
    const vllm = { ok: true as const, window: { tokens: 32_768, source: "/models (max_model_len, vLLM)" } };
    expect(resolveContextWindow({ provider: "openai" }, vllm)).toEqual(vllm.window);
    expect(resolveContextWindow({ provider: "openai" }, { ok: true })).toBeUndefined();
  });

  it("[llm] context_window overrides, but not above what the server holds", () => {
    expect(resolveContextWindow({ provider: "ollama", contextWindow: 65_536 }, maximum)).toEqual({
      tokens: 65_536,
      source: "[llm] context_window",
    });
    const llamacpp = { ok: true as const, window: { tokens: 4096, source: "/props (n_ctx, llama.cpp)" } };
    expect(resolveContextWindow({ provider: "openai", contextWindow: 8192 }, llamacpp)).toEqual({
      tokens: 4096,
      source: "/props (n_ctx, llama.cpp), which is less than [llm] context_window 8192",
    });
    expect(resolveContextWindow({ provider: "openai", contextWindow: 8192 }, undefined)).toEqual({
      tokens: 8192,
      source: "[llm] context_window",
    });
  });

  it("the embedded model's loaded context is its window", () => {
    const loaded = {
      ok: true as const,
      window: { tokens: 4096, source: "the embedded model's loaded context" },
    };
    expect(resolveContextWindow({ provider: "local", contextWindow: 8192 }, loaded)).toEqual(loaded.window);
  });
});
