/**
 * @module llm/reply
 * Assembles one reply from a provider's stream and decides whether it finished: text, thinking and tool
 * calls as they arrive (streamed to the caller), token usage, the finish reason — and the rule that a reply
 * which did not finish (cut, silent, no terminal chunk, `length`) is an `incomplete` ModelError carrying
 * what did arrive, never an answer. Shared by both providers, so they judge alike.
 */
import { ModelError } from "./errors.js";
import type { ChatReply, ChatRequest, ModelToolCall, TokenUsage } from "./types.js";

export class ReplyBuilder {
  text = "";
  thinking = "";
  toolCalls: ModelToolCall[] = [];
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  /** A refusal the provider sent apart from the text (OpenAI `delta.refusal`). */
  refusal = "";
  /** Tool-call pieces arrived (OpenAI assembles them at the end). */
  sawToolCall = false;
  /** The server sent its terminal chunk (`done: true`, a `finish_reason`, `[DONE]`). */
  finished = false;

  constructor(private readonly request: Pick<ChatRequest, "onText" | "onThinking">) {}

  addText(chunk: unknown): void {
    if (typeof chunk !== "string" || chunk === "") return;
    this.text += chunk;
    this.request.onText?.(chunk);
  }

  addThinking(chunk: unknown): void {
    if (typeof chunk !== "string" || chunk === "") return;
    this.thinking += chunk;
    this.request.onThinking?.(chunk);
  }

  /** True once anything reached the caller (a retry would repeat it). */
  get hasOutput(): boolean {
    return (
      this.text !== "" ||
      this.thinking !== "" ||
      this.refusal !== "" ||
      this.toolCalls.length > 0 ||
      this.sawToolCall
    );
  }

  build(): ChatReply {
    const reply: ChatReply = { text: this.text, toolCalls: this.toolCalls };
    if (this.thinking) reply.thinking = this.thinking;
    if (this.finishReason) reply.finishReason = this.finishReason;
    if (this.usage) reply.usage = this.usage;
    if (this.refusal) reply.refusal = this.refusal;
    return reply;
  }

  /**
   * The reply, or an `incomplete` error when it did not finish.
   * @param server names the server in messages ("Ollama at http://…").
   */
  finish(server: string): ChatReply {
    if (!this.finished)
      throw this.incomplete(`the reply from ${server} ended before it finished (no final chunk)`);
    if (this.finishReason === "length")
      throw this.incomplete(
        `the reply from ${server} was cut at the token limit (finish reason "length") — raise [llm] max_tokens or context_window`,
      );
    return this.build();
  }

  /** An error met while reading: once output arrived, it becomes `incomplete` (and is not retried). */
  cut(error: ModelError): ModelError {
    if (!this.hasOutput || error.kind === "cancelled") return error;
    if (error.kind === "timeout" || error.kind === "connection_reset")
      return this.incomplete(`${error.message}, in the middle of the reply`);
    error.partial = this.build();
    return error;
  }

  incomplete(message: string): ModelError {
    const error = new ModelError("incomplete", message);
    error.partial = this.build();
    return error;
  }
}
