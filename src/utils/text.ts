/**
 * @module utils/text
 * Small text helpers written once for every folder: counting lines as a reader does, and escaping a
 * literal for a regular expression.
 */

/**
 * Lines as a reader counts them: a final line without a newline counts, a trailing newline does not start
 * a new line, an empty text has none.
 * @example countLines("a\nb\n") // 2
 */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  let i = text.indexOf("\n");
  while (i !== -1) {
    if (i !== text.length - 1) n++;
    i = text.indexOf("\n", i + 1);
  }
  return n;
}

/**
 * A literal escaped for use inside a regular expression.
 * @example new RegExp(`^${escapeRegex("a.b*")}$`).test("a.b*") // true
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
