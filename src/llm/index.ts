/**
 * @module llm
 * Model providers behind one small interface: Ollama's native chat API and the OpenAI-compatible chat
 * completions API, both with tools and streaming. Anything added here is public.
 */
import { createOllamaModel } from "./ollama.js";
import { createOpenAIModel } from "./openai.js";
import type { ChatModel, LlmSettings } from "./types.js";

export { ModelError, type ModelErrorKind } from "./errors.js";
export { createOllamaModel, OLLAMA_DEFAULT_URL } from "./ollama.js";
export { createOpenAIModel } from "./openai.js";
export { DEFAULT_OLLAMA_MODEL, type LlmConfig, type LlmFlags, resolveLlmSettings } from "./settings.js";
export type {
  ChatMessage,
  ChatModel,
  ChatReply,
  ChatRequest,
  LlmSettings,
  ModelToolCall,
  ProviderKind,
} from "./types.js";

/** The model for resolved settings. */
export function createChatModel(settings: LlmSettings): ChatModel {
  return settings.provider === "ollama" ? createOllamaModel(settings) : createOpenAIModel(settings);
}
