/**
 * @module net/body
 * Reading a response body under a byte cap. Content encodings (gzip, deflate, br) are undone by zlib streams
 * and the cap counts decoded bytes, so a small compressed bomb stops at the cap instead of filling memory.
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { pipeline, type Readable, type Transform } from "node:stream";
import { NetError, networkError } from "./errors.js";

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
 * Reads `res` to the end or to `maxBytes` decoded bytes, whichever comes first.
 * Throws `NetError` (`too_large` when `onTooLarge` is "error", `decode` for a corrupt encoding).
 */
export async function readBody(
  res: IncomingMessage,
  url: string,
  maxBytes: number,
  onTooLarge: OnTooLarge,
): Promise<BodyRead> {
  const declared = Number(res.headers["content-length"]);
  const encoded = Boolean(res.headers["content-encoding"]);
  if (onTooLarge === "error" && !encoded && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge(url, maxBytes);
  }
  const decoders = decodersFor(res.headers["content-encoding"], url);
  let source: Readable = res;
  if (decoders.length > 0) {
    // pipeline destroys every stage on error or early exit, so a broken or abandoned stream leaks nothing.
    source = pipeline([res, ...decoders], () => {}) as unknown as Readable;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      if (total + buf.length > maxBytes) {
        if (onTooLarge === "error") throw tooLarge(url, maxBytes);
        chunks.push(buf.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buf);
      total += buf.length;
    }
  } catch (error) {
    if (error instanceof NetError) throw error;
    const code = (error as { code?: string }).code ?? "";
    if (code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code === "ERR__ERROR_FORMAT_PADDING_1") {
      throw networkError(
        "decode",
        url,
        `cannot decode ${url}: corrupt ${res.headers["content-encoding"]} body`,
      );
    }
    throw error;
  } finally {
    if (truncated || !res.complete) {
      res.destroy();
      for (const d of decoders) d.destroy();
    }
  }
  return { body: Buffer.concat(chunks, total), truncated };
}

function tooLarge(url: string, maxBytes: number): NetError {
  return networkError("too_large", url, `response from ${url} is larger than the ${maxBytes}-byte limit`);
}
