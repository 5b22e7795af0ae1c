/**
 * @module planner/response
 * A saved model response as the planner's input: plain text, or a provider's JSON response (OpenAI chat /
 * Responses, Ollama, Anthropic, Gemini) read into a {@link ModelReply}; and a routing plan's JSON checked
 * into a {@link RoutingPlan}. Pure: the caller reads the files.
 */
import { ConfigError } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";
import type { ModelReply, RoutingPlan } from "./types.js";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isPlainObject(part) && typeof part.text === "string" ? part.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** An assistant message in any provider's shape → text and native calls. */
function replyFromMessage(message: Record<string, unknown>): ModelReply {
  const reply: ModelReply = { text: textOf(message.content) };
  if (typeof message.reasoning_content === "string" && message.reasoning_content)
    reply.text = `<think>${message.reasoning_content}</think>${reply.text}`;
  if (Array.isArray(message.tool_calls)) reply.toolCalls = message.tool_calls;
  else if (Array.isArray(message.content)) {
    const uses = message.content.filter((b) => isPlainObject(b) && b.type === "tool_use");
    if (uses.length) reply.toolCalls = uses;
  }
  return reply;
}

/**
 * Reads a saved model response. JSON in a known provider shape is unpacked; anything else — including
 * JSON that is itself a tool call written by the model — is the reply's text.
 * @example replyFromResponse('{"choices":[{"message":{"content":"hi","tool_calls":[]}}]}') // { text: "hi", toolCalls: [] }
 */
export function replyFromResponse(content: string): ModelReply {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { text: content };
  }
  if (!isPlainObject(value)) return { text: content };
  const choice = Array.isArray(value.choices) ? value.choices[0] : undefined;
  if (isPlainObject(choice) && isPlainObject(choice.message)) return replyFromMessage(choice.message);
  if (isPlainObject(value.message)) return replyFromMessage(value.message);
  if (Array.isArray(value.output)) {
    const calls = value.output.filter((o) => isPlainObject(o) && o.type === "function_call");
    const text = value.output
      .filter((o) => isPlainObject(o) && o.type === "message")
      .map((o) => textOf((o as Record<string, unknown>).content))
      .join("\n");
    return calls.length ? { text, toolCalls: calls } : { text };
  }
  const candidate = Array.isArray(value.candidates) ? value.candidates[0] : undefined;
  if (
    isPlainObject(candidate) &&
    isPlainObject(candidate.content) &&
    Array.isArray(candidate.content.parts)
  ) {
    const parts = candidate.content.parts.filter(isPlainObject);
    const calls = parts.filter((p) => isPlainObject(p.functionCall));
    const text = textOf(parts.filter((p) => typeof p.text === "string"));
    return calls.length ? { text, toolCalls: calls } : { text };
  }
  if (value.role === "assistant" && ("content" in value || "tool_calls" in value))
    return replyFromMessage(value);
  return { text: content };
}

/** Parses `--routing`. Throws {@link ConfigError} (exit 2) when it is not a routing plan. */
export function parseRoutingPlan(json: string): RoutingPlan {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new ConfigError(`--routing is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(value)) throw new ConfigError("--routing must be a JSON object");
  const routing: RoutingPlan = {};
  if (value.query_type !== undefined) {
    if (typeof value.query_type !== "string") throw new ConfigError("--routing: query_type must be a string");
    routing.query_type = value.query_type;
  }
  for (const key of ["sub_questions", "suggested_tools"] as const) {
    const list = value[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string"))
      throw new ConfigError(`--routing: ${key} must be an array of strings`);
    routing[key] = list;
  }
  return routing;
}
