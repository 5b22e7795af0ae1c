/**
 * @module planner/strip-think
 * Separates a reasoning model's thinking (`<think>…</think>`, `<thinking>…</thinking>`) from its visible
 * answer. Handles unterminated blocks (a reply cut off mid-thought) and a lone closing tag (templates that
 * open the block in the prompt, so the reply starts inside it).
 */

const OPEN = /<(think|thinking)>/i;

/** A reply split into what the model showed and what it thought. */
export interface SplitReply {
  /** The answer outside every think block. */
  visible: string;
  /** The text inside think blocks, joined by newlines. */
  thinking: string;
}

/**
 * Splits `text` into visible answer and thinking.
 * @example splitThinking("<think>maybe jira_fetch</think>Use vector_search") // visible: "Use vector_search"
 */
export function splitThinking(text: string): SplitReply {
  const thoughts: string[] = [];
  let rest = text;
  // A closing tag before any opening tag: the block was opened by the prompt template.
  const firstClose = /<\/(think|thinking)>/i.exec(rest);
  const firstOpen = OPEN.exec(rest);
  if (firstClose && (!firstOpen || firstClose.index < firstOpen.index)) {
    thoughts.push(rest.slice(0, firstClose.index));
    rest = rest.slice(firstClose.index + firstClose[0].length);
  }
  const visible: string[] = [];
  for (;;) {
    const open = OPEN.exec(rest);
    if (!open) {
      visible.push(rest);
      break;
    }
    visible.push(rest.slice(0, open.index));
    const tag = open[1]!.toLowerCase();
    const after = rest.slice(open.index + open[0].length);
    const close = new RegExp(`</${tag}>`, "i").exec(after);
    if (!close) {
      // Unterminated: everything after the opening tag is thought, never an answer.
      thoughts.push(after);
      break;
    }
    thoughts.push(after.slice(0, close.index));
    rest = after.slice(close.index + close[0].length);
  }
  return { visible: visible.join("").trim(), thinking: thoughts.join("\n").trim() };
}

/** The visible answer only. */
export function stripThinking(text: string): string {
  return splitThinking(text).visible;
}
