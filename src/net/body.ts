/**
 * @module net/body
 * Reading a response body under a byte cap. Content encodings (gzip, deflate, br) are undone by zlib streams
 * and the cap counts decoded bytes, so a small compressed bomb stops at the cap instead of filling memory.
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { pipeline, type Readable, type Transform } from "node:stream";
import { type NetError, networkError } from "./errors.js";

/** What reading produced. */
export interface BodyRead {
  body: Buffer;
  /** True when the cap was reached and the rest was not read. */
  truncated: boolean;
}

/** What to do at the cap: keep what fits and mark it truncated, or fail with `too_large`. */
export type OnTooLarge = "truncate" | "error";

/** zlib, loaded when a response is compressed (not with every `toolgate` start-up). */
const zlib = () => createRequire(import.meta.url)("node:zlib") as typeof import("node:zlib");

function decoderFor(encoding: string, url: string): Transform | undefined {
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return zlib().createGunzip();
    case "deflate":
      return zlib().createInflate();
    case "br":
      return zlib().createBrotliDecompress();
    case "identity":
    case "":
      return undefined;
    default:
      throw networkError("decode", url, `cannot decode ${url}: unsupported content-encoding "${encoding}"`);
  }
}

const MAX_CODINGS = 4;

/** The decoders a `content-encoding` header asks for, in the order they must run. */
function decodersFor(header: string | undefined, url: string): Transform[] {
  if (!header) return [];
  const codings = header
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .reverse();
  // Each decoder holds zlib state (tens of KB): a header of thousands of `gzip,` would cost hundreds of MB.
  if (codings.length > MAX_CODINGS) {
    throw networkError("decode", url, `cannot decode ${url}: more than ${MAX_CODINGS} content-encodings`);
  }
  const out: Transform[] = [];
  for (const coding of codings) {
    const decoder = decoderFor(coding, url);
    if (decoder) out.push(decoder);
  }
  return out;
}

/**
 * The response body with its content encodings undone, as one stream (`res` itself when it has none).
 * Throws `NetError` (`decode`) for an encoding it does not know or too many of them.
 */
export function decodedBody(res: IncomingMessage, url: string): Readable {
  const decoders = decodersFor(res.headers["content-encoding"], url);
  // pipeline destroys every stage on error or early exit, so a broken or abandoned stream leaks nothing.
  return decoders.length > 0 ? (pipeline([res, ...decoders], () => {}) as unknown as Readable) : res;
}

/** A zlib or brotli failure while decoding, as a `decode` NetError; undefined for any other error. */
export function decodeFailure(error: unknown, res: IncomingMessage, url: string): NetError | undefined {
  const code = (error as { code?: string } | undefined)?.code ?? "";
  if (code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code === "ERR__ERROR_FORMAT_PADDING_1")
    return networkError(
      "decode",
      url,
      `cannot decode ${url}: corrupt ${res.headers["content-encoding"]} body`,
    );
  return undefined;
}

/**
 * Reads decoded `chunks` to the end or to `maxBytes`, whichever comes first; leaving early releases the
 * source. With `onTooLarge` "error", a declared length over the cap (of an unencoded body) fails before a
 * byte is read. Throws `NetError` (`too_large`), or what the chunks throw.
 */
export async function readCapped(
  chunks: AsyncIterable<Buffer>,
  head: { headers: Record<string, string>; url: string },
  maxBytes: number,
  onTooLarge: OnTooLarge,
): Promise<BodyRead> {
  const declared = Number(head.headers["content-length"]);
  const encoded = Boolean(head.headers["content-encoding"]);
  if (onTooLarge === "error" && !encoded && Number.isFinite(declared) && declared > maxBytes)
    throw tooLarge(head.url, maxBytes);
  const parts: Buffer[] = [];
  let total = 0;
  let truncated = false;
  for await (const chunk of chunks) {
    if (total + chunk.length > maxBytes) {
      if (onTooLarge === "error") throw tooLarge(head.url, maxBytes);
      parts.push(chunk.subarray(0, maxBytes - total));
      total = maxBytes;
      truncated = true;
      break;
    }
    parts.push(chunk);
    total += chunk.length;
  }
  return { body: Buffer.concat(parts, total), truncated };
}

function tooLarge(url: string, maxBytes: number): NetError {
  return networkError("too_large", url, `response from ${url} is larger than the ${maxBytes}-byte limit`);
}
