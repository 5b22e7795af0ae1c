/**
 * @module llm
 * Model providers behind one small interface: Ollama's native chat API and the OpenAI-compatible chat
 * completions API, both with tools and streaming, spoken over `fetch` with timeouts, retries and named
 * failures; and `local`, a GGUF model run in-process by node-llama-cpp. Anything added here is public.
 */
import { createLocalModel } from "./local.js";
import { createOllamaModel } from "./ollama.js";
import { createOpenAIModel } from "./openai.js";
import type { ChatModel, LlmSettings } from "./types.js";

export { ModelError, type ModelErrorKind, SETUP_KINDS } from "./errors.js";
export { DEFAULT_TIMEOUT_MS } from "./http.js";
export { createLocalModel } from "./local.js";
export {
  loadRuntime,
  RUNTIME_PACKAGE,
  RUNTIME_VERSION,
  runtimeBackend,
  runtimeDir,
} from "./local-runtime.js";
export { contextOverflowError, type OverflowFacts } from "./overflow.js";
export { DEFAULT_MAX_RETRIES } from "./retry.js";
export { type LlmConfig, resolveLlmSettings } from "./settings.js";
export { structuredReader } from "./structured.js";
export type {
  ChatMessage,
  ChatModel,
  ChatReply,
  LlmSettings,
  ModelProbe,
  ModelToolCall,
  TokenUsage,
  WindowFact,
} from "./types.js";
export { type ContextWindow, LEARNED_WINDOW_CAP, resolveContextWindow } from "./window.js";

/** The model for resolved settings. */
export function createChatModel(settings: LlmSettings): ChatModel {
  if (settings.provider === "local") return createLocalModel(settings);
  return settings.provider === "ollama" ? createOllamaModel(settings) : createOpenAIModel(settings);
}
