/**
 * @module loop/testdata/reading
 * The long reading session the context tests run: a workspace of large files (3,000 lines each), a
 * scripted model that reads them one per round and then answers — deciding the next file from the newest
 * result it was sent, as a model would, so that a retried request asks for the same file — and writes a
 * summary when asked for one; and the server-side checks every request must pass.
 */
import type { ChatBody, ScriptedReply } from "../../llm/testdata/model-server.js";
import type { JudgedPrompt } from "../../llm/testdata/prompt-window.js";
import { SUMMARY_INSTRUCTIONS } from "../context.js";

/** The task of the reading session. */
export function readingTask(files: number): string {
  return `Read f1.txt to f${files}.txt one by one, then say done.`;
}

/** A file of `lines` lines, each naming its file and number (`digits`: lines of dense digits). */
export function bigFile(i: number, lines = 3000, digits = false): string {
  const body = digits ? "3141592653589793238462643383279502884197" : "the quick brown fox jumps over the dog";
  return Array.from({ length: lines }, (_, n) => `line ${n + 1} of f${i}.txt: ${body}\n`).join("");
}

/** `count` files f1.txt … fN.txt. */
export function bigFiles(
  count: number,
  lines = 3000,
  digits?: (i: number) => boolean,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 1; i <= count; i++) files[`f${i}.txt`] = bigFile(i, lines, digits?.(i) ?? false);
  return files;
}

/** The answer the reading model gives after the last file. */
export function readingAnswer(files: number): string {
  return `Done: read all ${files} files.`;
}

/** The scripted model of the reading session (queue it once per request the session may make). */
export function readingModel(files: number): (body: ChatBody) => ScriptedReply {
  return (body) => {
    if (body.messages[0]?.content === SUMMARY_INSTRUCTIONS)
      return { text: "Read the files in order so far; each has 3,000 numbered lines. Still reading." };
    const last = body.messages.at(-1);
    const done =
      last?.role === "tool" ? Number(/^line 1 of f(\d+)\.txt/.exec(String(last.content))?.[1] ?? 0) : 0;
    if (done >= files) return { text: readingAnswer(files) };
    const next = done + 1;
    return {
      text: `Step ${next}: ${"I read the next file and check its lines carefully. ".repeat(4)}`,
      toolCalls: [{ name: "read_file", arguments: { path: `f${next}.txt` } }],
    };
  };
}

/**
 * What is wrong with the requests a server saw: a prompt it cut or refused, one over the window by its own
 * count or by a conservative one (a token per 3 characters of the rendered prompt), one without the task.
 */
export function requestProblems(
  prompts: readonly JudgedPrompt[],
  requests: readonly ChatBody[],
  task: string,
): string[] {
  const problems: string[] = [];
  prompts.forEach((p, i) => {
    if (p.outcome !== "whole")
      problems.push(`request ${i + 1} was ${p.outcome} (${p.tokens} of ${p.window})`);
    if (p.tokens > p.window) problems.push(`request ${i + 1}: ${p.tokens} tokens over ${p.window}`);
    if (Math.ceil(p.chars / 3) > p.window)
      problems.push(
        `request ${i + 1}: ${Math.ceil(p.chars / 3)} tokens at 3 characters a token, over ${p.window}`,
      );
  });
  requests.forEach((r, i) => {
    if (!JSON.stringify(r.messages).includes(task)) problems.push(`request ${i + 1} lacks the task`);
  });
  return problems;
}
