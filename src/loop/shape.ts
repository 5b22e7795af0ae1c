/**
 * @module loop/shape
 * Tool results shaped to the window. A round's results together get a share of the prompt budget, split
 * fairly (a short result stays whole, the long ones share the rest); a result over its part is cut by the
 * pipeline's own truncation (`core/truncate.ts`: the start, or start and end for commands, with its
 * indicator of what was left out), followed by a line telling the model how to see the rest — `startLine`
 * or `tail` for `read_file`, a narrower `grep`, less output from a command (`paging-hints.json`). The
 * pipeline's `[limits]` stay the upper bound: nothing here lengthens a result. Old results are shortened
 * the same way when the conversation is compacted.
 */
import { truncateOutput } from "../core/index.js";
import { countLines } from "../utils/index.js";
import HINTS from "./paging-hints.json" with { type: "json" };

/** One tool result as the loop sends it back, with what its cut needs to know. */
export interface ResultToShape {
  name: string;
  args: unknown;
  content: string;
  /** The tool's output mode (`head`, or `head-tail` for commands, whose end holds the error). */
  mode?: "head" | "head-tail";
}

/** The least a cut result keeps, indicator and hint included. */
const MIN_CHARS = 400;
/** How a result cut to fit the window says so (also how compaction recognises one). */
export const CUT_MARK = "[toolgate: cut to fit the context window; ";
/** How an old result shortened by compaction says so. */
export const SHORTENED_MARK = "[toolgate: shortened to save context; ";

/**
 * Each result's part of `maxChars`: whole when it fits an equal part of what is left, the longer ones
 * splitting the rest equally.
 * @example allot([100, 5000, 9000], 3000) // [100, 1450, 1450]
 */
export function allot(lengths: readonly number[], maxChars: number): number[] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!);
  const parts: number[] = new Array(lengths.length).fill(0);
  let left = Math.max(0, maxChars);
  let count = lengths.length;
  for (const i of order) {
    const part = Math.min(lengths[i]!, Math.floor(left / count));
    parts[i] = part;
    left -= part;
    count--;
  }
  return parts;
}

/** The round's results within `maxChars` characters together, each cut one with its indicator and hint. */
export function shapeResults(results: readonly ResultToShape[], maxChars: number): string[] {
  const parts = allot(
    results.map((r) => r.content.length),
    maxChars,
  );
  return results.map((r, i) => (r.content.length <= parts[i]! ? r.content : cutResult(r, parts[i]!)));
}

/** `result` cut to at most `chars` characters (never below {@link MIN_CHARS}), saying how to page. */
export function cutResult(result: ResultToShape, chars: number): string {
  return cutWith(result, chars, (next) => `${CUT_MARK}${pagingHint(result.name, result.args, next)}]`);
}

/** An old result shortened to `chars` by compaction: its start (and end, for commands) and how to get it again. */
export function shortenResult(result: ResultToShape, chars: number): string {
  return cutWith(result, chars, () => `${SHORTENED_MARK}call ${result.name} again if you need the rest]`);
}

/** True for a result already cut or shortened by the loop. */
export function isCut(content: string): boolean {
  return content.includes(CUT_MARK) || content.includes(SHORTENED_MARK);
}

function cutWith(result: ResultToShape, chars: number, note: (nextLine: number) => string): string {
  const first = firstLine(result.args);
  const lines = countLines(result.content);
  // The note's length depends on the line it names: plan with the largest it could name.
  const room = Math.max(MIN_CHARS, chars) - note(first + lines).length - 1;
  const cut = truncateOutput(result.content, {
    maxChars: Math.max(1, room),
    maxLines: Number.MAX_SAFE_INTEGER,
    mode: result.mode ?? "head",
  });
  if (!cut.truncated) return result.content;
  return `${cut.text}\n${note(first + lines - cut.omittedLines)}`;
}

/** What the model is told to do to see the rest of a cut result of `name` called with `args`. */
export function pagingHint(name: string, args: unknown, nextLine: number): string {
  const hints = HINTS as Record<string, string>;
  const tail = name === "read_file" && argument(args, "tail") !== undefined;
  const template = hints[tail ? "read_file:tail" : name] ?? hints["*"]!;
  return template.replaceAll("{name}", name).replaceAll("{nextLine}", String(nextLine));
}

/** The line a read started at (`startLine`, else 1). */
function firstLine(args: unknown): number {
  const start = argument(args, "startLine");
  return typeof start === "number" && Number.isInteger(start) && start > 0 ? start : 1;
}

function argument(args: unknown, key: string): unknown {
  return args && typeof args === "object" ? (args as Record<string, unknown>)[key] : undefined;
}
