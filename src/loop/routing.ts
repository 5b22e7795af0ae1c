/**
 * @module loop/routing
 * The optional routing step (`analyze_and_route`): one model call that returns `{query_type, sub_questions,
 * suggested_tools}` as JSON. The reply is validated; anything that is not that object is "no plan", and the
 * loop goes on without one. The planner uses the plan (whitelist, sub-question fan-out).
 */
import type { ChatMessage, ChatModel } from "../llm/index.js";
import { ModelError } from "../llm/index.js";
import { type RoutingPlan, stripThinking } from "../planner/index.js";
import { withModelSpan } from "../telemetry/index.js";

/** A tool as the routing prompt lists it. */
export interface RoutableTool {
  name: string;
  description: string;
}

const MAX_SUB_QUESTIONS = 8;

/** The routing instructions. */
export function routingPrompt(tools: readonly RoutableTool[]): string {
  const list = tools.map((t) => `- ${t.name}: ${firstSentence(t.description)}`).join("\n");
  return [
    "You route a user's request before any tool runs. Reply with one JSON object and nothing else:",
    '{"query_type": "<a short label>", "sub_questions": ["<independent questions, or none>"], "suggested_tools": ["<tool names from the list>"]}',
    "Use sub_questions only when the request has several independent parts. Suggest only tools from this list:",
    list || "(no tools)",
  ].join("\n");
}

/**
 * Asks the model for a routing plan. Returns undefined when the reply is not a valid plan; a model error
 * other than cancellation is also "no plan" (the main call will report it). A request `fits` says is over
 * the context budget is not sent: no plan either.
 */
export async function routeQuery(
  model: ChatModel,
  query: string,
  tools: readonly RoutableTool[],
  options: {
    signal?: AbortSignal;
    contextWindow?: number;
    fits?: (messages: readonly ChatMessage[]) => Promise<boolean>;
  } = {},
): Promise<RoutingPlan | undefined> {
  const { signal, contextWindow, fits } = options;
  const messages: ChatMessage[] = [
    { role: "system", content: routingPrompt(tools) },
    { role: "user", content: query },
  ];
  if (fits && !(await fits(messages))) return undefined;
  try {
    const reply = await withModelSpan(model, () =>
      model.chat({
        messages,
        json: true,
        ...(signal ? { signal } : {}),
        // The session's window: Ollama reloads a model whose num_ctx changes between requests.
        ...(contextWindow ? { contextWindow } : {}),
      }),
    );
    return parseRoutingReply(reply.text);
  } catch (error) {
    if (error instanceof ModelError && error.kind === "cancelled") throw error;
    return undefined;
  }
}

/**
 * Validates a routing reply: a JSON object (optionally fenced, after any `<think>` block) with
 * `query_type` a string, `sub_questions` and `suggested_tools` arrays of strings. Anything else: undefined.
 * Suggested tools outside the caller's scope are kept: the planner skips them with a reason, and dropping
 * them could empty the whitelist, which would mean "every tool".
 */
export function parseRoutingReply(text: string): RoutingPlan | undefined {
  let body = stripThinking(text).trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(body);
  if (fenced) body = fenced[1]!.trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.query_type !== "string") return undefined;
  const subQuestions = v.sub_questions ?? [];
  const suggested = v.suggested_tools ?? [];
  if (!isStringArray(subQuestions) || !isStringArray(suggested)) return undefined;
  return {
    query_type: v.query_type,
    sub_questions: subQuestions
      .map((q) => q.trim())
      .filter(Boolean)
      .slice(0, MAX_SUB_QUESTIONS),
    suggested_tools: [...new Set(suggested.map((t) => t.trim()).filter(Boolean))],
  };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((x) => typeof x === "string");
}

function firstSentence(text: string): string {
  const line = text.split("\n")[0] ?? "";
  const end = line.search(/\.\s/);
  return end > 0 ? line.slice(0, end + 1) : line;
}
