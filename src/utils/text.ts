/**
 * @module utils/text
 * Small text helpers written once for every folder: counting lines as a reader does, escaping a literal
 * for a regular expression, and the one form of a URL's host that every host comparison uses.
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

/**
 * The host of a parsed URL as compared everywhere (the policy's `url` conditions and the network client's
 * allow list and refusals): lowercase, no trailing dots, IPv6 without brackets.
 * @example normalizeHost("[::1]") // "::1"; normalizeHost("Example.COM.") // "example.com"
 */
export function normalizeHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  while (host.endsWith(".")) host = host.slice(0, -1);
  return host;
}
