/**
 * @module loop/context
 * The two compaction steps, as functions over the message list: old tool results shortened first (their
 * call stays, with a line saying how to get the rest), then older messages replaced by a summary the model
 * writes itself. The system prompt and the user's current task are never touched: the task stays word for
 * word after the summary, and the summary request itself carries it. The keeper decides when and how far.
 */
import { truncateOutput } from "../core/index.js";
import type { ChatMessage, ChatModel } from "../llm/index.js";
import { withModelSpan } from "../telemetry/index.js";
import { type ResultToShape, SHORTENED_MARK, shortenResult } from "./shape.js";

/** What an old tool result keeps when shortened, indicator and note included. */
const KEPT_CHARS = 400;
/** The longest summary kept (a model that ignores "at most 200 words" does not get to fill the window). */
const SUMMARY_MAX_CHARS = 2400;

/** The system prompt of the summary request. */
export const SUMMARY_INSTRUCTIONS =
  "You compress an agent's working history. Summarise the conversation below in at most 200 words: the user's requests, what was done with which tools, the facts found (file names, values, errors) and what is still open. Plain text, no tool calls.";

/** The first line of the message that replaces summarised history. */
export const SUMMARY_HEADING = "Summary of the earlier conversation (written to save context):";

/** Where the newest round starts: the last assistant message with calls, or the last user message. */
export function newestRound(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.toolCalls?.length) return i;
    if (m.role === "user") return i;
  }
  return messages.length;
}

/** The user's current task: the last user message that is not a summary, before the newest round's results. */
export function taskIndex(messages: readonly ChatMessage[]): number | undefined {
  for (let i = Math.min(newestRound(messages), messages.length - 1); i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !m.content.startsWith(SUMMARY_HEADING)) return i;
  }
  return undefined;
}

/**
 * Step 1: shortens tool results before the newest round, in place, oldest first, until `excessChars`
 * characters are saved (Infinity: all of them). Returns how many were shortened.
 */
export function shortenToolResults(
  messages: ChatMessage[],
  excessChars: number,
  modeOf: (tool: string) => ResultToShape["mode"],
): number {
  const end = newestRound(messages);
  const args = new Map<string, unknown>();
  let count = 0;
  let saved = 0;
  for (let i = 0; i < end && saved < excessChars; i++) {
    const m = messages[i]!;
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) args.set(c.id, c.arguments);
    if (m.role !== "tool" || m.content.length <= KEPT_CHARS || m.content.includes(SHORTENED_MARK)) continue;
    const content = shortenResult(
      { name: m.name, args: args.get(m.toolCallId), content: m.content, mode: modeOf(m.name) },
      KEPT_CHARS,
    );
    if (content.length >= m.content.length) continue;
    saved += m.content.length - content.length;
    messages[i] = { ...m, content };
    count++;
  }
  return count;
}

/**
 * Step 2: which messages a summary replaces — everything after the system prompt up to the newest round,
 * except the current task, which stays word for word after it. `idle` (between turns): everything after
 * the system prompt.
 */
export function summaryRange(
  messages: readonly ChatMessage[],
  idle = false,
): { from: number; to: number; task?: number } | undefined {
  const from = messages[0]?.role === "system" ? 1 : 0;
  // Between turns nothing is in progress: everything after the system prompt may go.
  if (idle) return messages.length - from >= 2 ? { from, to: messages.length } : undefined;
  const end = newestRound(messages);
  const found = taskIndex(messages);
  const task = found !== undefined && found >= from && found < end ? found : undefined;
  const replaced = end - from - (task === undefined ? 0 : 1);
  return replaced >= 2 ? { from, to: end, ...(task !== undefined ? { task } : {}) } : undefined;
}

/** The summary request for `older` (within `maxChars` of rendered history), with the task it served. */
export function summaryRequest(
  older: readonly ChatMessage[],
  task: ChatMessage | undefined,
  maxChars: number,
): ChatMessage[] {
  // Too long: keep the beginning and the end, which carry the requests and the latest state.
  const history = truncateOutput(older.map(renderForSummary).join("\n"), {
    maxChars: Math.max(200, maxChars),
    maxLines: Number.MAX_SAFE_INTEGER,
    mode: "head-tail",
  }).text;
  const asked = task ? `The user's task, still open:\n${task.content}\n\n` : "";
  return [
    { role: "system", content: SUMMARY_INSTRUCTIONS },
    { role: "user", content: `${asked}The conversation to summarise:\n${history}` },
  ];
}

/** Asks the model for the summary (as text; no tools) and returns the message that replaces the history. */
export async function summarise(
  model: ChatModel,
  request: ChatMessage[],
  signal: AbortSignal,
  contextWindow?: number,
): Promise<ChatMessage> {
  const reply = await withModelSpan(model, () =>
    model.chat({
      messages: request,
      signal,
      ...(contextWindow ? { contextWindow } : {}),
    }),
  );
  const text = truncateOutput(reply.text.trim(), {
    maxChars: SUMMARY_MAX_CHARS,
    maxLines: Number.MAX_SAFE_INTEGER,
  }).text;
  return { role: "user", content: `${SUMMARY_HEADING}\n${text}` };
}

function renderForSummary(m: ChatMessage): string {
  switch (m.role) {
    case "assistant": {
      const calls = (m.toolCalls ?? [])
        .map((c) => `${c.name}(${JSON.stringify(c.arguments ?? {})})`)
        .join(", ");
      return `assistant: ${m.content}${calls ? ` [called ${calls}]` : ""}`;
    }
    case "tool":
      return `tool ${m.name}: ${m.content}`;
    default:
      return `${m.role}: ${m.content}`;
  }
}
