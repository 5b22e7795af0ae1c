/**
 * @module loop/budget
 * The context window as a hard budget: how many tokens a prompt may take (the window minus a reserve for
 * the reply), where compaction brings the conversation down to, and a token gauge that estimates a prompt
 * from its characters. The gauge learns the rate from a server's own counts, but only from counts that can
 * be true — a count equal to the window (a server that cut the prompt to fit), or one implying fewer than
 * one token per 6 characters or more than one per 1.5, is not learned — and plans with a margin, since the
 * next tool result may tokenize denser than what was counted. An exact counter (the embedded model's own
 * tokenizer) needs no margin. Pure arithmetic; the session's keeper applies it.
 */
import type { ChatMessage } from "../llm/index.js";

/** Characters per token before a server has counted (a common average for English and code). */
const CHARS_PER_TOKEN = 4;
/**
 * How much more than the learned rate a prompt is planned with: code, numbers, JSON and most languages
 * other than English tokenize up to a third denser than the average a count was taken over.
 */
const MARGIN = 4 / 3;
/** A count implying more characters per token than this is not a count of the whole prompt. */
export const MAX_CHARS_PER_TOKEN = 6;
/** A count implying fewer characters per token than this is not believed either. */
export const MIN_CHARS_PER_TOKEN = 1.5;
/** Characters a message costs besides its content (role, separators), as templates render it. */
const MESSAGE_OVERHEAD = 16;
/** Compaction leaves the conversation at this share of the room the fixed part (system, tools, task) leaves. */
export const COMPACTION_TARGET = 0.65;
/** A round's tool results together may take this share of that room (less after an overflow). */
export const RESULTS_SHARE = 0.5;

/** The characters of a message list as a server sees them (content, call names and arguments). */
export function charsOf(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += m.content.length + MESSAGE_OVERHEAD;
    if (m.role === "assistant")
      for (const c of m.toolCalls ?? [])
        n +=
          c.name.length +
          (typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {})).length +
          MESSAGE_OVERHEAD;
  }
  return n;
}

/** Tokens per character, learned from counts of known prompts. */
export class TokenGauge {
  private tokensPerChar = 1 / CHARS_PER_TOKEN;
  private exact = false;

  /**
   * Learns from a count of `tokens` for a prompt of `chars` characters. A server's count is refused when
   * it fills `window` or falls outside the plausible rates; an exact count (`exact`) is always taken.
   * Returns whether it was learned.
   */
  learn(chars: number, tokens: number, options: { window?: number; exact?: boolean } = {}): boolean {
    if (chars <= 0 || tokens <= 0) return false;
    if (!options.exact && !plausible(chars, tokens, options.window)) return false;
    this.tokensPerChar = tokens / chars;
    this.exact = options.exact === true;
    return true;
  }

  /** After a refusal or a cut: `chars` characters held at least `tokens` tokens. */
  atLeast(chars: number, tokens: number): void {
    if (chars <= 0 || tokens <= 0) return;
    this.tokensPerChar = Math.max(this.tokensPerChar, Math.min(tokens / chars, 1 / MIN_CHARS_PER_TOKEN));
  }

  /** The tokens planned for `chars` characters: the learned rate, with the margin unless counts are exact. */
  tokensFor(chars: number): number {
    return Math.ceil(chars * this.planned());
  }

  /** About how many characters fit in `tokens` tokens, at the planned rate. */
  charsFor(tokens: number): number {
    return Math.max(0, Math.floor(tokens / this.planned()));
  }

  private planned(): number {
    return this.tokensPerChar * (this.exact ? 1 : MARGIN);
  }
}

/** Whether a server's count of `tokens` for `chars` characters can be a count of the whole prompt. */
export function plausible(chars: number, tokens: number, window?: number): boolean {
  if (window !== undefined && tokens >= window) return false;
  return tokens * MAX_CHARS_PER_TOKEN >= chars && tokens * MIN_CHARS_PER_TOKEN <= chars;
}

/** The budget of one window. */
export interface Budget {
  window: number;
  /** Tokens kept free for the reply: `[llm] max_tokens`, else a quarter of the window, at most 2048. */
  reserve: number;
  /** Tokens the prompt may take: the window minus the reserve. No request the estimate puts above is sent. */
  prompt: number;
}

/**
 * The budget for a window; the reserve is at most half of it.
 * @example budgetFor(8192) // { window: 8192, reserve: 2048, prompt: 6144 }
 */
export function budgetFor(window: number, maxReplyTokens?: number): Budget {
  const reserve = Math.min(maxReplyTokens ?? Math.min(2048, Math.floor(window / 4)), Math.floor(window / 2));
  return { window, reserve, prompt: window - reserve };
}

/** What a session's numbers are, for one request: the budget, the fixed part, and what follows from them. */
export interface Room {
  /** Tokens of what is always sent whole: system prompt, tool definitions, the user's task. */
  fixed: number;
  /** Tokens compaction brings the whole prompt down to. */
  target: number;
  /** Tokens a round's tool results may take together. */
  results: number;
}

/** The room a budget leaves after the fixed part; `share` scales the results' share (1, or less after an overflow). */
export function roomFor(budget: Budget, fixed: number, share = 1): Room {
  const free = Math.max(0, budget.prompt - fixed);
  return {
    fixed,
    target: fixed + Math.floor(free * COMPACTION_TARGET),
    results: Math.floor(free * RESULTS_SHARE * share),
  };
}

/** A server's count for an earlier request, to compare the next one with. */
export interface Counted {
  chars: number;
  tokens: number;
}

/**
 * Why a count from a server that cuts silently (Ollama before 0.12.6) shows that it did not read the whole
 * prompt, or undefined when it may have: the count fills the window (the server cut the prompt to it), it
 * is fewer tokens than the prompt's characters can be (one per 6), or — for a prompt that only grew since
 * `previous` — it is less than the earlier count plus the least the added characters hold (the server
 * dropped the oldest messages: the user's task first).
 */
export function cutSignal(
  tokens: number,
  chars: number,
  window: number,
  previous?: Counted,
): string | undefined {
  if (tokens >= window) return `it counted ${tokens} prompt tokens, the whole window of ${window}`;
  if (tokens * MAX_CHARS_PER_TOKEN < chars)
    return `it counted ${tokens} prompt tokens for ${chars} characters`;
  if (previous && chars > previous.chars) {
    // A few tokens of slack: a template may render the previous last message a little differently.
    const least = previous.tokens + Math.floor((chars - previous.chars) / MAX_CHARS_PER_TOKEN) - 16;
    if (tokens < least)
      return `it counted ${tokens} prompt tokens, fewer than the ${previous.tokens} of the shorter prompt before it plus what was added`;
  }
  return undefined;
}
