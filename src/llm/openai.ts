/**
 * @module llm/openai
 * The OpenAI-compatible Chat Completions API (`/v1/chat/completions`: OpenAI, llama.cpp's server, vLLM,
 * LM Studio, hosted services) through the official `openai` client: SSE streaming, `tool_calls` deltas
 * assembled by index with `function.arguments` arriving as JSON text fragments, `reasoning_content` kept.
 */
import OpenAI from "openai";
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

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type WireTool = OpenAI.Chat.Completions.ChatCompletionTool;

/** A tool call being assembled from deltas. */
interface Partial {
  id: string;
  name: string;
  args: string;
}

/**
 * Creates a model talking to an OpenAI-compatible server.
 * @example createOpenAIModel({ provider: "openai", model: "gpt-4o-mini", baseUrl: "https://api.openai.com/v1", apiKey })
 */
export function createOpenAIModel(settings: LlmSettings): ChatModel {
  const where = { ...settings, provider: "openai" as const };
  return {
    provider: "openai",
    model: settings.model,
    baseUrl: settings.baseUrl,
    schemaProvider: "openai",
    async chat(request: ChatRequest): Promise<ChatReply> {
      const signal = request.signal ?? new AbortController().signal;
      if (signal.aborted) throw cancelledError();
      // Local servers need no key; the client insists on one, and "none" is what they ignore.
      const client = new OpenAI({
        apiKey: settings.apiKey ?? "none",
        baseURL: settings.baseUrl,
        maxRetries: 0,
        fetch: signalFetch(signal),
      });
      let text = "";
      let thinking = "";
      let finishReason: string | undefined;
      const partials = new Map<number, Partial>();
      try {
        const stream = await client.chat.completions.create(
          {
            model: settings.model,
            messages: request.messages.map(toWireMessage),
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools as WireTool[] } : {}),
            ...(request.json ? { response_format: { type: "json_object" as const } } : {}),
            stream: true,
          },
          { signal },
        );
        for await (const chunk of stream) {
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta as typeof choice.delta & {
            reasoning_content?: string | null;
            reasoning?: string | null;
          };
          const reasoning = delta?.reasoning_content ?? delta?.reasoning;
          if (reasoning) {
            thinking += reasoning;
            request.onThinking?.(reasoning);
          }
          if (delta?.content) {
            text += delta.content;
            request.onText?.(delta.content);
          }
          for (const part of delta?.tool_calls ?? []) {
            const index = part.index ?? partials.size;
            let entry = partials.get(index);
            if (!entry) {
              entry = { id: "", name: "", args: "" };
              partials.set(index, entry);
            }
            if (part.id) entry.id = part.id;
            // Servers that send a name or arguments as JSON values instead of text get them read as text.
            const fn = part.function as { name?: unknown; arguments?: unknown } | undefined;
            if (typeof fn?.name === "string") entry.name += fn.name;
            if (typeof fn?.arguments === "string") entry.args += fn.arguments;
            else if (fn?.arguments && typeof fn.arguments === "object")
              entry.args += JSON.stringify(fn.arguments);
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      } catch (error) {
        throw mapError(error, where, signal);
      }
      // The clients end a stream quietly on abort; a cut-off reply must not pass for a whole one.
      if (signal.aborted) throw cancelledError();
      const toolCalls: ModelToolCall[] = [...partials.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, p]) => ({
          id: p.id || `call_${index + 1}`,
          name: p.name,
          arguments: parseArguments(p.args),
        }));
      const reply: ChatReply = { text, toolCalls };
      if (thinking) reply.thinking = thinking;
      if (finishReason) reply.finishReason = finishReason;
      return reply;
    },
  };
}

/** Arguments as an object when the text is JSON; otherwise the raw text (validation will say what is wrong). */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toWireMessage(message: ChatMessage): WireMessage {
  switch (message.role) {
    case "assistant": {
      const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
        role: "assistant",
        content: message.content,
      };
      if (message.toolCalls?.length)
        out.tool_calls = message.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: {
            name: c.name,
            arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
          },
        }));
      return out;
    }
    case "tool":
      return { role: "tool", content: message.content, tool_call_id: message.toolCallId };
    default:
      return { role: message.role, content: message.content };
  }
}

function mapError(error: unknown, where: LlmSettings, signal: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal.aborted || error instanceof OpenAI.APIUserAbortError) return cancelledError();
  if (error instanceof OpenAI.APIConnectionError || isConnectionFailure(error))
    return new ModelError("unreachable", unreachableMessage(where));
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const body = error.error as { message?: string } | undefined;
    return errorForStatus(where, error.status, body?.message ?? error.message);
  }
  const message = oneLine(withoutKey((error as Error)?.message ?? String(error), where));
  return new ModelError(
    "bad_reply",
    `the model server at ${where.baseUrl} sent a reply we could not read: ${message}`,
  );
}
