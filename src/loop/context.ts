/**
 * @module loop/context
 * Keeping a conversation inside the model's context window: a token estimate calibrated by the server's own
 * counts (Ollama `prompt_eval_count`, OpenAI `usage.prompt_tokens`), and the two compaction steps — old
 * tool results shortened first (their call stays, with a line saying what was cut), then older messages
 * replaced by a summary the model writes itself. Pure functions over the message list; the session runs them.
 */
import type { ChatMessage, ChatModel } from "../llm/index.js";
import { withModelSpan } from "../telemetry/index.js";

/** Characters per token before the server has told us better (a common average for English and code). */
const CHARS_PER_TOKEN = 4;
/** What an old tool result keeps of its text when shortened. */
const KEPT_CHARS = 300;

/** The characters of a message list as a server sees them (content, call names and arguments). */
export function charsOf(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += m.content.length + 16;
    if (m.role === "assistant")
      for (const c of m.toolCalls ?? []) n += c.name.length + JSON.stringify(c.arguments ?? {}).length + 16;
  }
  return n;
}

/** Tokens per character, learned from a server's count for a known prompt. */
export class TokenGauge {
  private tokensPerChar = 1 / CHARS_PER_TOKEN;

  /** Learns from a reply's usage: `promptTokens` for `messages`. */
  learn(messages: readonly ChatMessage[], promptTokens: number): void {
    const chars = charsOf(messages);
    if (chars > 0 && promptTokens > 0) this.tokensPerChar = promptTokens / chars;
  }

  estimate(messages: readonly ChatMessage[]): number {
    return Math.ceil(charsOf(messages) * this.tokensPerChar);
  }

  /** About how many characters `tokens` tokens are. */
  charsFor(tokens: number): number {
    return Math.ceil(tokens / this.tokensPerChar);
  }
}

/** The token budget for the prompt: the window minus room for the reply. */
export function promptBudget(window: number, maxTokens?: number): number {
  const reserve = maxTokens ?? Math.min(2048, Math.floor(window / 4));
  return Math.max(256, window - reserve);
}

/** Where the newest round starts: the last assistant message with calls (its results must stay whole). */
function newestRound(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.toolCalls?.length) return i;
    if (m.role === "user") return i;
  }
  return messages.length;
}

/**
 * Step 1: shortens tool results before the newest round, in place, oldest first, until `excessChars`
 * characters are saved (Infinity: all of them). Returns how many were shortened.
 */
export function shortenToolResults(messages: ChatMessage[], excessChars: number): number {
  const end = newestRound(messages);
  let count = 0;
  let saved = 0;
  for (let i = 0; i < end && saved < excessChars; i++) {
    const m = messages[i]!;
    if (m.role !== "tool" || m.content.length <= KEPT_CHARS * 2 || m.content.includes(SHORTENED)) continue;
    const omitted = m.content.length - KEPT_CHARS;
    const content = `${m.content.slice(0, KEPT_CHARS)}\n${SHORTENED}: ${omitted} of ${m.content.length} characters left out; call ${m.name} again if you need them]`;
    saved += m.content.length - content.length;
    messages[i] = { ...m, content };
    count++;
  }
  return count;
}

const SHORTENED = "[shortened by toolgate to save context";

/** The system prompt of the summary request. */
export const SUMMARY_INSTRUCTIONS =
  "You compress an agent's working history. Summarise the conversation below in at most 200 words: the user's requests, what was done with which tools, the facts found (file names, values, errors) and what is still open. Plain text, no tool calls.";

/** The first line of the message that replaces summarised history. */
export const SUMMARY_HEADING = "Summary of the earlier conversation (written to save context):";

/**
 * Step 2: which messages a summary replaces — everything after the system prompt up to the newest round,
 * except the current task (the last user message before that round), which stays word for word after it.
 * `idle` (between turns): everything after the system prompt.
 */
export function summaryRange(
  messages: readonly ChatMessage[],
  idle = false,
): { from: number; to: number; task?: number } | undefined {
  const from = messages[0]?.role === "system" ? 1 : 0;
  // Between turns nothing is in progress: everything after the system prompt may go.
  if (idle) return messages.length - from >= 2 ? { from, to: messages.length } : undefined;
  const end = newestRound(messages);
  let task: number | undefined;
  for (let i = end - 1; i >= from && task === undefined; i--)
    if (messages[i]!.role === "user" && !messages[i]!.content.startsWith(SUMMARY_HEADING)) task = i;
  const replaced = end - from - (task === undefined ? 0 : 1);
  return replaced >= 2 ? { from, to: end, ...(task !== undefined ? { task } : {}) } : undefined;
}

/** Asks the model for the summary of `older` (as text; no tools) and returns the replacing message. */
export async function summarise(
  model: ChatModel,
  older: readonly ChatMessage[],
  budgetChars: number,
  signal: AbortSignal,
): Promise<ChatMessage> {
  let text = older.map(renderForSummary).join("\n");
  // The request itself must fit: keep the beginning and the end, which carry the task and the latest state.
  if (text.length > budgetChars) {
    const half = Math.floor(budgetChars / 2);
    text = `${text.slice(0, half)}\n[…]\n${text.slice(-half)}`;
  }
  const reply = await withModelSpan(model, () =>
    model.chat({
      messages: [
        { role: "system", content: SUMMARY_INSTRUCTIONS },
        { role: "user", content: text },
      ],
      signal,
    }),
  );
  return { role: "user", content: `${SUMMARY_HEADING}\n${reply.text.trim()}` };
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
