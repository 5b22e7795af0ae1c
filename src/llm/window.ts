/**
 * @module llm/window
 * Which context window a session works with, and where that figure came from (the chat banner says both):
 * `[llm] context_window` (or `--context-window`) when set, else what the server states — Ollama's
 * `/api/show`, vLLM's `max_model_len`, llama.cpp's `n_ctx`, the embedded model's loaded context. A model's
 * architectural maximum is capped (Ollama allocates memory for the `num_ctx` it is sent, and a 128 K window
 * would not fit a laptop); nothing is ever larger than what the server says it can hold.
 */
import type { LlmSettings, ModelProbe } from "./types.js";

/** The largest window used when only a model's maximum is known. `[llm] context_window` sets any size. */
export const LEARNED_WINDOW_CAP = 16_384;

/** A session's context window in tokens, and where the figure came from. */
export interface ContextWindow {
  tokens: number;
  source: string;
}

/**
 * The window for `settings` given the start-up probe's answer; undefined when neither says one.
 * @example resolveContextWindow({ ...settings, contextWindow: 8192 }, probe) // { tokens: 8192, source: "[llm] context_window" }
 */
export function resolveContextWindow(
  settings: Pick<LlmSettings, "contextWindow" | "provider">,
  probe: ModelProbe | undefined,
): ContextWindow | undefined {
  const fact = probe?.ok ? probe.window : undefined;
  // The embedded model was loaded with the configured size (at most its own maximum): that is the window.
  if (settings.provider === "local" && fact) return { tokens: fact.tokens, source: fact.source };
  const configured = settings.contextWindow;
  if (configured) {
    // A window the server cannot hold would only move the overflow to the server.
    if (fact && fact.tokens < configured)
      return {
        tokens: fact.tokens,
        source: `${fact.source}, which is less than [llm] context_window ${configured}`,
      };
    return { tokens: configured, source: "[llm] context_window" };
  }
  if (!fact) return undefined;
  if (fact.maximum && fact.tokens > LEARNED_WINDOW_CAP)
    return {
      tokens: LEARNED_WINDOW_CAP,
      source: `${fact.source}: ${fact.tokens}, capped at ${LEARNED_WINDOW_CAP}; set [llm] context_window for more`,
    };
  return { tokens: fact.tokens, source: fact.source };
}
