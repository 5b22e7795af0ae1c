/**
 * @module tools/files/prefix-lines
 * Builds grep's output, `path:N: text` per matching line, from each file's `N: text` lines as ripgrep printed
 * them: each file's lines decoded as one text, split, cut where too long, and joined behind its path. (A
 * WebAssembly SIMD layout of the bytes did this part ~3× faster, but that was ~0.1 ms of a grep call at 1,000
 * matches, under 1 % of it, so it went: docs/performance.md, issue 28.)
 */

/** One file's lines to show behind a prefix. */
export interface ShownPart {
  prefix: string;
  /** `N: text` lines in UTF-8, each ending with a line feed (the last may lack it); CRs before it are dropped. */
  lines: Uint8Array;
  /** How many lines `lines` holds. */
  count: number;
}

/**
 * The parts one after another, as one text: each line as the part's prefix and the line (a CR before its
 * line feed dropped), ending with a line feed. A text (what follows the line's first `: `) longer than
 * `maxTextChars` UTF-16 units is cut there and marked with `…`, never between a surrogate pair's halves.
 */
export function joinShownParts(parts: readonly ShownPart[], maxTextChars: number): string {
  return parts.map((part) => partText(part, maxTextChars)).join("");
}

function partText(part: ShownPart, maxTextChars: number): string {
  if (part.lines.length === 0) return "";
  let body = Buffer.from(part.lines.buffer, part.lines.byteOffset, part.lines.length).toString("utf8");
  if (body.endsWith("\n")) body = body.slice(0, -1);
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const start = line.indexOf(": ") + 2;
    if (line.length - start > maxTextChars) {
      let cut = start + maxTextChars;
      if (isHighSurrogate(line.charCodeAt(cut - 1))) cut--;
      line = `${line.slice(0, cut)}…`;
    }
    lines[i] = line;
  }
  return `${part.prefix}${lines.join(`\n${part.prefix}`)}\n`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
