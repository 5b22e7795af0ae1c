/**
 * @module tools/web/content
 * What a fetched body is (HTML, other text, or binary) and how to turn its bytes into a string: the charset
 * from the Content-Type header, else from a `<meta>` tag, else UTF-8.
 */
import { TextDecoder } from "node:util";

/** How web_fetch treats a body. */
export type ContentClass = "html" | "text" | "binary";

const TEXT_APPLICATION = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/typescript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/csv",
]);

/** The media type of a Content-Type header, lower case, without parameters (`""` when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * Classifies a body by its Content-Type, sniffing the first bytes when the header is missing or generic.
 * @example classify("application/ld+json; charset=utf-8", body) // "text"
 */
export function classify(contentType: string | undefined, body: Buffer): ContentClass {
  const type = mediaType(contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type.startsWith("text/")) return "text";
  if (TEXT_APPLICATION.has(type) || type.endsWith("+json") || type.endsWith("+xml")) return "text";
  if (type === "" || type === "application/octet-stream" || type === "binary/octet-stream")
    return sniff(body);
  return "binary";
}

/** Guesses from the first bytes: NUL or many control bytes mean binary; a leading tag means HTML. */
function sniff(body: Buffer): ContentClass {
  const head = body.subarray(0, 1024);
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return "binary";
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  if (head.length > 0 && control / head.length > 0.1) return "binary";
  const text = head.toString("latin1").trimStart().toLowerCase();
  if (text.startsWith("<!doctype html") || text.startsWith("<html") || /<(head|body)[\s>]/.test(text)) {
    return "html";
  }
  return "text";
}

/** The charset a Content-Type header or an HTML `<meta>` declares, if any. */
function declaredCharset(contentType: string | undefined, body: Buffer, html: boolean): string | undefined {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? "")?.[1];
  if (fromHeader) return fromHeader;
  if (!html) return undefined;
  const head = body.subarray(0, 2048).toString("latin1");
  return (
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    /<meta[^>]+content\s*=\s*["'][^"']*charset=([\w.:-]+)/i.exec(head)?.[1]
  );
}

/** Decodes a text body with its declared charset (unknown labels fall back to UTF-8). A BOM wins. */
export function decodeBody(contentType: string | undefined, body: Buffer, html: boolean): string {
  const label = declaredCharset(contentType, body, html) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  // TextDecoder strips a matching BOM; a UTF-8 BOM under another declared label still means UTF-8.
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) decoder = new TextDecoder("utf-8");
  return decoder.decode(body);
}
