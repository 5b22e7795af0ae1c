/**
 * @module core/truncate
 * Output truncation: limits by characters and by lines, an indicator that says how much was omitted,
 * and the guarantee that the truncated text, indicator included, stays within both limits.
 * `head` keeps the start; `head-tail` keeps both ends (command output, where the end holds the error).
 */
import { countLines } from "../utils/index.js";

export interface TruncationLimits {
  /** Maximum characters (UTF-16 code units) of the result, indicator included. */
  maxChars: number;
  /** Maximum lines of the result, indicator included. */
  maxLines: number;
}

export interface TruncateOptions extends TruncationLimits {
  mode?: "head" | "head-tail";
}

export interface Truncation {
  text: string;
  truncated: boolean;
  omittedLines: number;
  omittedChars: number;
}

/** Defaults used by the pipeline: about 16k tokens of output. */
export const DEFAULT_LIMITS: TruncationLimits = { maxChars: 64_000, maxLines: 2_000 };

/** The indicator line. Exported so UIs and tests can recognise it. */
export function truncationIndicator(omittedLines: number, omittedChars: number): string {
  const lines = `${omittedLines.toLocaleString("en-US")} line${omittedLines === 1 ? "" : "s"}`;
  const chars = `${omittedChars.toLocaleString("en-US")} character${omittedChars === 1 ? "" : "s"}`;
  return `[... output truncated: ${lines} (${chars}) omitted ...]`;
}

/**
 * Shortens `text` to the limits.
 * @example truncateOutput(big, { maxChars: 1000, maxLines: 50, mode: "head-tail" }).text
 */
export function truncateOutput(text: string, options: TruncateOptions): Truncation {
  const { maxChars, maxLines } = options;
  const lineCount = countLines(text);
  if (text.length <= maxChars && lineCount <= maxLines) {
    return { text, truncated: false, omittedLines: 0, omittedChars: 0 };
  }
  // Reserve room for the longest indicator this text could need (every line and character omitted).
  const reserve = truncationIndicator(lineCount, text.length).length + 2;
  const charBudget = Math.max(0, maxChars - reserve);
  const lineBudget = Math.max(0, maxLines - 1);
  if (charBudget === 0 || lineBudget === 0) {
    const indicator = truncationIndicator(lineCount, text.length);
    return {
      text: indicator.slice(0, maxChars),
      truncated: true,
      omittedLines: lineCount,
      omittedChars: text.length,
    };
  }
  if (options.mode === "head-tail") {
    const head = takeHead(text, Math.ceil(charBudget / 2), Math.ceil(lineBudget / 2));
    const tail = takeTail(text.slice(head.length), Math.floor(charBudget / 2), Math.floor(lineBudget / 2));
    const omitted = text.slice(head.length, text.length - tail.length);
    const indicator = truncationIndicator(countLines(omitted), omitted.length);
    return {
      text: `${withNewline(head)}${indicator}\n${tail}`,
      truncated: true,
      omittedLines: countLines(omitted),
      omittedChars: omitted.length,
    };
  }
  const head = takeHead(text, charBudget, lineBudget);
  const omitted = text.slice(head.length);
  const indicator = truncationIndicator(countLines(omitted), omitted.length);
  return {
    text: `${withNewline(head)}${indicator}`,
    truncated: true,
    omittedLines: countLines(omitted),
    omittedChars: omitted.length,
  };
}

function withNewline(s: string): string {
  return s.length === 0 || s.endsWith("\n") ? s : `${s}\n`;
}

/** The longest prefix within both budgets, ending on a line boundary when possible. */
function takeHead(text: string, chars: number, lines: number): string {
  let end = 0;
  for (let line = 0; line < lines && end < text.length; line++) {
    const nl = text.indexOf("\n", end);
    const next = nl === -1 ? text.length : nl + 1;
    if (next > chars) {
      // A line that does not fit: cut it only if nothing fit before it.
      if (end === 0) end = safeCut(text, chars);
      break;
    }
    end = next;
  }
  return text.slice(0, end);
}

/** The longest suffix within both budgets, starting on a line boundary when possible. */
function takeTail(text: string, chars: number, lines: number): string {
  let start = text.length;
  const body = text.endsWith("\n") ? text.length - 1 : text.length;
  let cursor = body;
  for (let line = 0; line < lines && cursor > 0; line++) {
    const nl = text.lastIndexOf("\n", cursor - 1);
    const begin = nl + 1;
    if (text.length - begin > chars) {
      if (start === text.length) start = safeCut(text, text.length - chars, true);
      break;
    }
    start = begin;
    cursor = nl;
    if (nl === -1) break;
  }
  return text.slice(start);
}

/** A cut index that does not split a surrogate pair. */
function safeCut(text: string, index: number, forward = false): number {
  const code = text.charCodeAt(index - 1);
  if (code >= 0xd800 && code <= 0xdbff) return forward ? index + 1 : index - 1;
  return index;
}
