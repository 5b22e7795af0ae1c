/**
 * @module workspace/encoding
 * Text encodings and line endings, detected on read and preserved on write: byte-order marks (UTF-8,
 * UTF-16LE/BE), UTF-16 without a mark, legacy 8-bit encodings (via `chardet`, decoded with `iconv-lite`),
 * binary detection, and LF/CRLF. A decoding that would not write back byte-exactly is never chosen.
 */
import { createRequire } from "node:module";

// chardet and iconv-lite are loaded on first use: UTF-8, UTF-16 and Latin-1 are handled by Node itself, so
// most processes never pay for the legacy encoding tables.
const require = createRequire(import.meta.url);
let chardetModule: typeof import("chardet") | undefined;
let iconvModule: typeof import("iconv-lite") | undefined;
const legacyDetector = () => (chardetModule ??= require("chardet") as typeof import("chardet"));
const legacyCodec = () => (iconvModule ??= require("iconv-lite") as typeof import("iconv-lite"));

function swapBytes(bytes: Uint8Array): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0; i + 1 < out.length; i += 2) {
    const b = out[i] as number;
    out[i] = out[i + 1] as number;
    out[i + 1] = b;
  }
  return out;
}

/** Decodes without a BOM; Node's own codecs for UTF-8, UTF-16 and Latin-1, iconv-lite for the rest. */
function decodeBytes(bytes: Buffer, encoding: string): string {
  switch (encoding) {
    case "utf-8":
      return bytes.toString("utf8");
    case "utf-16le":
      return bytes.toString("utf16le");
    case "utf-16be":
      return swapBytes(bytes).toString("utf16le");
    case "iso-8859-1":
      return bytes.toString("latin1");
    default:
      return legacyCodec().decode(bytes, encoding, { stripBOM: false });
  }
}

/** Encodes without a BOM (the inverse of {@link decodeBytes}). */
function encodeBytes(text: string, encoding: string): Buffer {
  switch (encoding) {
    case "utf-8":
      return Buffer.from(text, "utf8");
    case "utf-16le":
      return Buffer.from(text, "utf16le");
    case "utf-16be":
      return swapBytes(Buffer.from(text, "utf16le"));
    case "iso-8859-1":
      return Buffer.from(text, "latin1");
    default:
      return legacyCodec().encode(text, encoding, { addBOM: false });
  }
}

/** How many leading bytes are inspected for binary content and encoding. */
export const SNIFF_BYTES = 8192;

/** An encoding as detected: a name `iconv-lite` knows (`utf-8`, `utf-16le`, `iso-8859-1`...) and a BOM flag. */
export interface EncodingInfo {
  encoding: string;
  bom: boolean;
}

/** What {@link detectEncoding} finds in a file's first bytes. */
export interface Detection extends EncodingInfo {
  /** NUL bytes or many control bytes: not text. */
  binary: boolean;
}

/** Line ending style: `crlf` only when every line break is CRLF; anything else is kept as written. */
export type LineEnding = "lf" | "crlf";

const BOMS: Record<string, Uint8Array> = {
  "utf-8": Uint8Array.of(0xef, 0xbb, 0xbf),
  "utf-16le": Uint8Array.of(0xff, 0xfe),
  "utf-16be": Uint8Array.of(0xfe, 0xff),
};

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** UTF-16 without a BOM: text in Latin script has a zero byte in every other position. */
function sniffUtf16(sample: Uint8Array): string | undefined {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  if (oddZeros / pairs > 0.4 && evenZeros / pairs < 0.05) return "utf-16le";
  if (evenZeros / pairs > 0.4 && oddZeros / pairs < 0.05) return "utf-16be";
  return undefined;
}

/** Binary when the sample holds a NUL byte or more than 10% control bytes other than whitespace and ESC. */
export function looksBinary(sample: Uint8Array): boolean {
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i] as number;
    if (b === 0) return true;
    if (
      (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 11 && b !== 8 && b !== 27) ||
      b === 0x7f
    ) {
      control++;
    }
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

function isValidUtf8(bytes: Uint8Array, complete: boolean): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/**
 * Detects the encoding of a file from its first bytes (or all of them: `complete` says whether `bytes` is the
 * whole file, so a multi-byte character cut at the end of a sample is not taken for invalid UTF-8).
 */
export function detectEncoding(bytes: Uint8Array, complete = true): Detection {
  for (const [encoding, bom] of Object.entries(BOMS)) {
    if (startsWith(bytes, bom)) return { encoding, bom: true, binary: false };
  }
  const sample = bytes.length > SNIFF_BYTES ? bytes.subarray(0, SNIFF_BYTES) : bytes;
  const utf16 = sniffUtf16(sample);
  if (utf16) return { encoding: utf16, bom: false, binary: false };
  if (looksBinary(sample)) return { encoding: "binary", bom: false, binary: true };
  if (isValidUtf8(bytes, complete)) return { encoding: "utf-8", bom: false, binary: false };
  return { encoding: guessLegacy(sample), bom: false, binary: false };
}

/** Within this many confidence points of the best guess, Western Latin-1 wins (it is by far the most common). */
const LATIN1_MARGIN = 15;

/**
 * Picks a legacy 8-bit encoding with `chardet`. Short samples make its confidences close, so Latin-1 is
 * preferred when nearly as likely; Latin-1 text with bytes 0x80–0x9F is really Windows-1252 (smart quotes).
 */
function guessLegacy(sample: Uint8Array): string {
  const iconv = legacyCodec();
  const candidates = legacyDetector()
    .analyse(sample)
    .filter((c) => iconv.encodingExists(c.name));
  const top = candidates[0];
  const latin = candidates.find((c) => /^(iso-8859-1|windows-1252)$/i.test(c.name));
  let choice = top?.name.toLowerCase() ?? "iso-8859-1";
  if (choice === "utf-8" || choice === "ascii") choice = "iso-8859-1";
  if (latin && top && top.confidence - latin.confidence <= LATIN1_MARGIN) choice = "iso-8859-1";
  if (choice === "iso-8859-1" && sample.some((b) => b >= 0x80 && b <= 0x9f)) choice = "windows-1252";
  return choice;
}

/** Decoded text with the facts needed to write it back the same way. */
export interface DecodedText extends EncodingInfo {
  text: string;
  eol: LineEnding;
}

/**
 * Decodes a whole file. A legacy encoding whose decoding does not encode back to the same bytes is replaced
 * by ISO-8859-1, which maps every byte one-to-one, so writing back never changes untouched bytes.
 */
export function decodeText(bytes: Uint8Array, detection: EncodingInfo = detectEncoding(bytes)): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bomLength = detection.bom ? (BOMS[detection.encoding]?.length ?? 0) : 0;
  const body = buffer.subarray(bomLength);
  let encoding = detection.encoding === "binary" ? "iso-8859-1" : detection.encoding;
  let text = decodeBytes(body, encoding);
  // UTF-8 that failed validation and every legacy guess must write back to the very same bytes.
  if (encoding !== "utf-16le" && encoding !== "utf-16be" && !encodeBytes(text, encoding).equals(body)) {
    encoding = "iso-8859-1";
    text = decodeBytes(body, encoding);
  }
  return { text, encoding, bom: detection.bom, eol: detectLineEnding(text) };
}

/**
 * Encodes text the way a file was: same encoding, same BOM. When the text holds characters the encoding
 * cannot represent, it is written as UTF-8 instead and `encoding` says so.
 */
export function encodeText(text: string, info: EncodingInfo): { bytes: Buffer } & EncodingInfo {
  let { encoding, bom } = info;
  let body = encodeBytes(text, encoding);
  if (!BOMS[encoding] && decodeBytes(body, encoding) !== text) {
    encoding = "utf-8";
    bom = false;
    body = encodeBytes(text, encoding);
  }
  const mark = bom ? BOMS[encoding] : undefined;
  return { bytes: mark ? Buffer.concat([mark, body]) : body, encoding, bom };
}

/** `crlf` when the text has line breaks and every one is CRLF; otherwise `lf`. */
export function detectLineEnding(text: string): LineEnding {
  let crlf = 0;
  let index = text.indexOf("\n");
  while (index !== -1) {
    if (index === 0 || text.charCodeAt(index - 1) !== 13) return "lf";
    crlf++;
    index = text.indexOf("\n", index + 1);
  }
  return crlf > 0 ? "crlf" : "lf";
}

/** CRLF → LF. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

/** Converts LF text to the given line ending (text already in CRLF is left alone). */
export function withLineEnding(text: string, eol: LineEnding): string {
  return eol === "crlf" ? text.replace(/\r?\n/g, "\r\n") : text;
}

/** A streaming decoder for one encoding (for reading a line range without loading the file). */
export function createDecoder(encoding: string): { write(chunk: Buffer): string; end(): string } {
  if (encoding === "utf-8" || encoding === "utf-16le" || encoding === "utf-16be") {
    // TextDecoder keeps multi-byte characters split across chunks and drops a leading BOM.
    const decoder = new TextDecoder(encoding);
    return { write: (chunk) => decoder.decode(chunk, { stream: true }), end: () => decoder.decode() };
  }
  if (encoding === "iso-8859-1" || encoding === "binary") {
    return { write: (chunk) => chunk.toString("latin1"), end: () => "" };
  }
  const decoder = legacyCodec().getDecoder(encoding, { stripBOM: true });
  return { write: (chunk) => decoder.write(chunk), end: () => decoder.end() ?? "" };
}
