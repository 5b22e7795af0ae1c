/**
 * @module cli/chat/question
 * A question `chat` asks before its session starts (trust this folder? download the local model?). Ctrl-D
 * (end of input) or Ctrl-C there is an answer too: nothing is done and chat ends cleanly, instead of
 * readline's "Aborted with Ctrl+D" surfacing as an internal error.
 */
import type { Interface } from "node:readline/promises";

/** The person ended a start-up question with Ctrl-D or Ctrl-C: chat leaves, having done nothing. */
export class QuestionUnanswered extends Error {
  override readonly name = "QuestionUnanswered";
  constructor(readonly how: "end of input" | "Ctrl-C") {
    super(`no answer (${how})`);
  }
}

/**
 * Asks `text` on `rl` and resolves to the line typed; rejects with {@link QuestionUnanswered} on Ctrl-D (the
 * interface closes) or Ctrl-C (caught here while the question is open, so readline does not close itself).
 * @example const answer = await askBeforeStart(rl, "Trust this folder? [y/N] ");
 */
export async function askBeforeStart(rl: Interface, text: string): Promise<string> {
  if ((rl as { closed?: boolean }).closed) throw new QuestionUnanswered("end of input");
  const stop = new AbortController();
  let how: QuestionUnanswered["how"] = "end of input";
  const onInterrupt = () => {
    how = "Ctrl-C";
    stop.abort();
  };
  // A pending question does not settle when its input ends (only a typed Ctrl-D rejects it): abort it then.
  const onClose = () => stop.abort();
  rl.on("SIGINT", onInterrupt);
  rl.on("close", onClose);
  try {
    return await rl.question(text, { signal: stop.signal });
  } catch {
    throw new QuestionUnanswered(how);
  } finally {
    rl.off("SIGINT", onInterrupt);
    rl.off("close", onClose);
  }
}
