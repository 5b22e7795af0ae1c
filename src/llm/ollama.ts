/**
 * @module llm/ollama
 * Ollama's native chat API (`/api/chat`) through the official `ollama` client: NDJSON streaming, tool calls
 * whose `function.arguments` are objects, `message.thinking` where the model returns it separately.
 */
import { Ollama, type Message as OllamaMessage } from "ollama";
import {
  cancelledError,
  errorForStatus,
  isConnectionFailure,
  ModelError,
  oneLine,
  unreachableMessage,
  withoutKey,
} from "./errors.js";
import { signalFetch } from "./fetch.js";
import type { ChatMessage, ChatModel, ChatReply, ChatRequest, LlmSettings, ModelToolCall } from "./types.js";

/** Ollama's default address. */
export const OLLAMA_DEFAULT_URL = "http://127.0.0.1:11434";

/**
 * Creates a model talking to Ollama.
 * @example const model = createOllamaModel({ provider: "ollama", model: "qwen3", baseUrl: OLLAMA_DEFAULT_URL });
 */
export function createOllamaModel(settings: LlmSettings): ChatModel {
  const where = { ...settings, provider: "ollama" as const };
  return {
    provider: "ollama",
    model: settings.model,
    baseUrl: settings.baseUrl,
    schemaProvider: "ollama",
    async chat(request: ChatRequest): Promise<ChatReply> {
      const signal = request.signal ?? new AbortController().signal;
      if (signal.aborted) throw cancelledError();
      const headers: Record<string, string> = {};
      if (settings.apiKey) headers.Authorization = `Bearer ${settings.apiKey}`;
      const client = new Ollama({ host: settings.baseUrl, fetch: signalFetch(signal, true), headers });
      let text = "";
      let thinking = "";
      const toolCalls: ModelToolCall[] = [];
      let finishReason: string | undefined;
      try {
        const stream = await client.chat({
          model: settings.model,
          messages: request.messages.map(toOllamaMessage),
          ...(request.tools && request.tools.length > 0
            ? { tools: request.tools as Parameters<Ollama["chat"]>[0]["tools"] }
            : {}),
          ...(request.json ? { format: "json" } : {}),
          stream: true,
        });
        for await (const chunk of stream) {
          const message = chunk.message;
          if (message?.thinking) {
            thinking += message.thinking;
            request.onThinking?.(message.thinking);
          }
          if (message?.content) {
            text += message.content;
            request.onText?.(message.content);
          }
          for (const call of message?.tool_calls ?? []) {
            // A malformed call (no function, a name that is not text) is kept, for the loop to answer.
            const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
            toolCalls.push({
              id: `call_${toolCalls.length + 1}`,
              name: typeof fn?.name === "string" ? fn.name : "",
              arguments: fn?.arguments ?? {},
            });
          }
          if (chunk.done) finishReason = chunk.done_reason;
        }
      } catch (error) {
        throw mapError(error, where, signal);
      }
      // The clients end a stream quietly on abort; a cut-off reply must not pass for a whole one.
      if (signal.aborted) throw cancelledError();
      const reply: ChatReply = { text, toolCalls };
      if (thinking) reply.thinking = thinking;
      if (finishReason) reply.finishReason = finishReason;
      return reply;
    },
  };
}

function toOllamaMessage(message: ChatMessage): OllamaMessage {
  switch (message.role) {
    case "assistant": {
      const out: OllamaMessage = { role: "assistant", content: message.content };
      if (message.toolCalls?.length)
        out.tool_calls = message.toolCalls.map((c) => ({
          function: { name: c.name, arguments: argumentsObject(c.arguments) },
        }));
      return out;
    }
    case "tool":
      return { role: "tool", content: message.content, tool_name: message.name };
    default:
      return { role: message.role, content: message.content };
  }
}

/** Ollama wants an object; a call whose arguments were unreadable text goes back as `{}`. */
function argumentsObject(args: unknown): Record<string, unknown> {
  if (args && typeof args === "object" && !Array.isArray(args)) return args as Record<string, unknown>;
  if (typeof args === "string") {
    try {
      const parsed = JSON.parse(args);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
    } catch {
      // fall through
    }
  }
  return {};
}

function mapError(error: unknown, where: LlmSettings, signal: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal.aborted) return cancelledError();
  const e = error as { name?: string; status_code?: number; error?: string; message?: string };
  if (e?.name === "ResponseError" && typeof e.status_code === "number")
    return errorForStatus(where, e.status_code, e.error ?? e.message ?? "");
  if (isConnectionFailure(error)) return new ModelError("unreachable", unreachableMessage(where));
  const message = oneLine(withoutKey(e?.message ?? String(error), where));
  if (/not found/i.test(message) && /model/i.test(message)) return errorForStatus(where, 404, message);
  if (/Did not receive done/i.test(message))
    return new ModelError("bad_reply", `Ollama at ${where.baseUrl} ended the reply early`);
  return new ModelError("server", `Ollama at ${where.baseUrl} failed: ${message}`);
}
