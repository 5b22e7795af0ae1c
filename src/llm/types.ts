/**
 * @module llm/types
 * The one small interface every model provider implements: a chat turn with tools and streaming, in a
 * provider-neutral message shape. Providers translate to and from their own wire formats. Types only.
 */

/** A tool call the model made, with its arguments as given (an object, or raw JSON text if unparsable). */
export interface ModelToolCall {
  /** The provider's id (OpenAI), or one we made up (Ollama has none). Tool messages answer it. */
  id: string;
  name: string;
  arguments: unknown;
}

/** One message of a conversation, provider-neutral. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[]; thinking?: string }
  | { role: "tool"; content: string; toolCallId: string; name: string };

/** One chat request. */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** The provider's tools payload (`gate.schemas(provider, { scope })`); empty or absent: no tools. */
  tools?: readonly unknown[];
  signal?: AbortSignal;
  /** Streamed visible text, as it arrives. */
  onText?: (chunk: string) => void;
  /** Streamed reasoning ("thinking"), as it arrives, where the provider sends it separately. */
  onThinking?: (chunk: string) => void;
  /** Ask for a JSON object reply (routing). Providers that cannot ignore it. */
  json?: boolean;
}

/** The model's whole reply. */
export interface ChatReply {
  /** Visible text (may contain `<think>` blocks when the model inlines its reasoning). */
  text: string;
  toolCalls: ModelToolCall[];
  /** Reasoning the provider returned separately (Ollama `message.thinking`, `reasoning_content`). */
  thinking?: string;
  /** Why the model stopped, as the provider says it (`stop`, `tool_calls`, `length`, ...). */
  finishReason?: string;
}

/** Which wire format a provider speaks. */
export type ProviderKind = "ollama" | "openai";

/** A chat model. */
export interface ChatModel {
  readonly provider: ProviderKind;
  readonly model: string;
  readonly baseUrl: string;
  /** The schema flavour `gate.schemas()` must produce for this provider. */
  readonly schemaProvider: "ollama" | "openai";
  chat(request: ChatRequest): Promise<ChatReply>;
}

/** Resolved model settings (config, then flags, then the environment for the key). */
export interface LlmSettings {
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  /** The API key's value, read from the variable `apiKeyEnv` names. Never from a file. */
  apiKey?: string;
  apiKeyEnv?: string;
}
