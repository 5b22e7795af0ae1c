/**
 * @module llm/types
 * The one small interface every model provider implements: a chat turn with tools and streaming, in a
 * provider-neutral message shape. Providers translate to and from their own wire formats. Types only.
 */
import type { LlmProvider, ToolChoice } from "../config/choices.js";

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
  /**
   * A JSON schema the reply's text must follow (the quarantined reader, docs/injection.md), in each
   * provider's structured-output mode: OpenAI's `response_format` of type `json_schema` (strict), Ollama's
   * `format`, the local model's grammar. The caller still validates the reply: a server may ignore it.
   */
  schema?: { name: string; schema: Readonly<Record<string, unknown>> };
  /** Ollama's `num_ctx` for this request (the context window the loop works with). */
  contextWindow?: number;
  /** The reply budget in tokens for this request, instead of `[llm] max_tokens`. */
  maxTokens?: number;
  /**
   * Called before a retry, with what failed and how long toolgate waits; `maxTokens` is set when the retry
   * asks again with a larger reply budget (a reply cut at the token limit after a complete tool call).
   */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; maxTokens?: number }) => void;
}

/** Tokens the server counted for one reply (Ollama `prompt_eval_count`/`eval_count`, OpenAI `usage`). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
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
  /** Token counts, when the server reported them. */
  usage?: TokenUsage;
  /** The model's refusal to answer, where the provider sends it apart from the text (OpenAI `refusal`). */
  refusal?: string;
}

/** Which wire format a provider speaks. */
export type ProviderKind = LlmProvider;

/** A chat model. */
export interface ChatModel {
  readonly provider: ProviderKind;
  readonly model: string;
  readonly baseUrl: string;
  /** The schema flavour `gate.schemas()` must produce for this provider. */
  readonly schemaProvider: "ollama" | "openai";
  /** The context window in tokens, when configured (`[llm] context_window`). */
  readonly contextWindow?: number;
  /**
   * True when the server shortens a prompt longer than its window without refusing it (Ollama), so that
   * only its token count can tell; the loop checks each count.
   */
  readonly cutsLongPrompts?: boolean;
  chat(request: ChatRequest): Promise<ChatReply>;
  /**
   * The exact prompt size of a request in the model's own tokens (its chat template and tokenizer), where
   * the provider can count without a server round trip (the embedded model). Absent: the loop estimates.
   */
  countTokens?(request: Pick<ChatRequest, "messages" | "tools">): Promise<number>;
  /**
   * Whether the server answers and has the model, and what it says of the context window (Ollama's
   * `/api/show`, vLLM's and llama.cpp's model listing, the embedded model's loaded context); `tools: false`
   * for a model without the "tools" capability.
   */
  probe(signal?: AbortSignal): Promise<ModelProbe>;
}

/** What a server says of a model's context window: tokens, and where that figure came from. */
export interface WindowFact {
  tokens: number;
  /** Where the figure was read, for the banner: "/api/show (qwen3.context_length)". */
  source: string;
  /** True when it is the model's maximum rather than what the server allocates per request. */
  maximum?: boolean;
}

/** The result of {@link ChatModel.probe}. */
export type ModelProbe =
  | { ok: true; window?: WindowFact; tools?: false }
  | { ok: false; error: import("./errors.js").ModelError };

/** Resolved model settings (config, then flags, then the environment for the key). */
export interface LlmSettings {
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  /** The API key's value, read from the variable `apiKeyEnv` names. Never from a file. */
  apiKey?: string;
  apiKeyEnv?: string;
  /** No byte from the server for this long fails the request. Default 120000. */
  timeoutMs?: number;
  /** Retries for 429, 5xx and connection errors before any output. Default 2. */
  maxRetries?: number;
  /** The context window in tokens (`[llm] context_window`); Ollama learns it from `/api/show` otherwise. */
  contextWindow?: number;
  /** CPU threads of the `local` provider (`[llm] threads`); node-llama-cpp chooses when absent. */
  threads?: number;
  /** Sampling and reasoning options, sent in each provider's own terms. */
  options?: ModelOptions;
}

/** `[llm]` options as users write them; each provider translates them (see docs/chat.md). */
export interface ModelOptions {
  temperature?: number;
  /** Ollama `num_predict`, OpenAI `max_tokens`. */
  maxTokens?: number;
  /** Ollama `think` (true/false or a level); OpenAI `reasoning_effort` (a level; true = "medium"). */
  think?: boolean | "low" | "medium" | "high";
  /** Ollama only: how long the model stays loaded ("5m", "0", seconds as a number). */
  keepAlive?: string | number;
  /** OpenAI only: "auto", "none" or "required". */
  toolChoice?: ToolChoice;
  /** OpenAI only. */
  parallelToolCalls?: boolean;
}
