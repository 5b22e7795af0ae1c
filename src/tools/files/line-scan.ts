/**
 * @module tools/files/line-scan
 * Line ranges of a file found on its bytes, for read_file: a forward scan for lines `first..last` and a
 * backward scan for the last `n` lines (chunks from 16 KB doubling to 1 MB), forward in 1 MB chunks, looking for the encoding's newline unit (`0A`,
 * or `0A 00` / `00 0A` at an even offset in UTF-16) without decoding anything. Only the kept bytes are then
 * decoded. Stateful encodings (ISO-2022, UTF-7, HZ) and UTF-32, where a `0A` byte is not always a line
 * break, are not handled here: {@link canScanBytes} says so and the caller decodes from the start instead.
 */
import type { FileHandle } from "node:fs/promises";
import { createDecoder } from "../../workspace/index.js";

const CHUNK = 1024 * 1024;
/** The backward scan's first chunk (then doubling): 20 lines of source are ~1–2 KB. */
const FIRST_TAIL_CHUNK = 16 * 1024;

/** Where a newline unit ends in a chunk, as the index just past it; -1 when there is none. */
type Finder = (buf: Buffer, from: number, chunkStart: number) => number;
/** The index just past the last newline unit ending at or before `limit` in the chunk; -1 when none. */
type BackFinder = (buf: Buffer, limit: number, chunkStart: number) => number;

interface Unit {
  /** Bytes of one newline unit. */
  size: number;
  next: Finder;
  previous: BackFinder;
}

const BYTE: Unit = {
  size: 1,
  next: (buf, from) => {
    const i = buf.indexOf(10, from);
    return i === -1 ? -1 : i + 1;
  },
  previous: (buf, limit) => (limit <= 0 ? -1 : buf.lastIndexOf(10, limit - 1) + 1 || -1),
};

/** UTF-16: the `0A` byte of a newline is at an even offset (LE, `0A 00`) or odd (BE, `00 0A`). */
function utf16(littleEndian: boolean): Unit {
  const isNewline = (buf: Buffer, i: number, chunkStart: number) =>
    littleEndian
      ? (chunkStart + i) % 2 === 0 && buf[i + 1] === 0
      : (chunkStart + i) % 2 === 1 && buf[i - 1] === 0;
  return {
    size: 2,
    next: (buf, from, chunkStart) => {
      for (let i = buf.indexOf(10, from); i !== -1; i = buf.indexOf(10, i + 1)) {
        if (isNewline(buf, i, chunkStart)) return littleEndian ? i + 2 : i + 1;
      }
      return -1;
    },
    previous: (buf, limit, chunkStart) => {
      // The `0A` byte of a unit ending at or before `limit` is at most at limit-2 (LE) or limit-1 (BE).
      // (A negative offset would make lastIndexOf count from the end, hence the guards.)
      const from = limit - (littleEndian ? 2 : 1);
      if (from < 0) return -1;
      for (let i = buf.lastIndexOf(10, from); i >= 0; i = buf.lastIndexOf(10, i - 1)) {
        if (isNewline(buf, i, chunkStart)) return littleEndian ? i + 2 : i + 1;
        if (i === 0) break;
      }
      return -1;
    },
  };
}

const UNITS: Record<string, Unit> = { "utf-16le": utf16(true), "utf-16be": utf16(false) };

/** Whether lines of this encoding can be found on bytes (see the module note). */
export function canScanBytes(encoding: string): boolean {
  return !/2022|utf-?7|^hz|utf-?32|ucs-?4/i.test(encoding);
}

function unitFor(encoding: string): Unit {
  return UNITS[encoding] ?? BYTE;
}

/** Byte bounds of a range, and what the scan learnt on the way. */
export interface ByteRange {
  start: number;
  end: number;
  /** The last line inside the range (`first - 1` when the file ends before `first`). */
  lastLine: number;
  /** Known when the scan reached the end of the file. */
  totalLines?: number;
}

/**
 * Finds lines `first..last` (1-based, inclusive; `last` undefined = to the end). Lines end with the
 * encoding's newline unit; a final line without one counts when it has bytes.
 */
export async function findLineRange(
  handle: FileHandle,
  size: number,
  encoding: string,
  first: number,
  last: number | undefined,
  signal: AbortSignal,
): Promise<ByteRange> {
  const unit = unitFor(encoding);
  const buf = Buffer.allocUnsafe(CHUNK);
  let line = 1;
  let lineStart = 0;
  let start = first <= 1 ? 0 : -1;
  for (let position = 0; position < size; ) {
    signal.throwIfAborted();
    let { bytesRead } = await handle.read(buf, 0, Math.min(CHUNK, size - position), position);
    if (bytesRead === 0) break; // the file shrank
    // Keep UTF-16 chunks even-sized, so a newline unit never straddles two chunks.
    if (unit.size === 2 && bytesRead % 2 === 1 && position + bytesRead < size) bytesRead--;
    const chunk = buf.subarray(0, bytesRead);
    for (let after = unit.next(chunk, 0, position); after !== -1; after = unit.next(chunk, after, position)) {
      const absolute = position + after;
      if (line === first - 1) start = absolute;
      if (last !== undefined && line >= last && start !== -1) return { start, end: absolute, lastLine: line };
      line++;
      lineStart = absolute;
    }
    position += bytesRead;
  }
  const totalLines = lineStart < size ? line : line - 1;
  if (start === -1) return { start: size, end: size, lastLine: totalLines, totalLines };
  return { start, end: size, lastLine: Math.min(totalLines, last ?? totalLines), totalLines };
}

/** Where the last lines start, and their bytes when the first chunk read (the file's end) held them all. */
export interface TailStart {
  start: number;
  /** Bytes `start..size`, when already read; otherwise the caller reads them (see {@link decodeRange}). */
  bytes?: Buffer;
}

/**
 * Finds the start of the last `count` lines by scanning backwards from the end (a newline at the very end
 * closes the last line, it does not start another). Start 0 when the file has no more than `count` lines.
 * The first chunk read is the file's end, so a short tail is found, and handed back, in one read.
 */
export async function findTailStart(
  handle: FileHandle,
  size: number,
  encoding: string,
  count: number,
  signal: AbortSignal,
): Promise<TailStart> {
  const unit = unitFor(encoding);
  if (size === 0) return { start: 0, bytes: Buffer.alloc(0) };
  // The first chunk is small (a tail is usually a few kilobytes); each next one doubles, up to CHUNK.
  let chunkSize = FIRST_TAIL_CHUNK;
  let buf = Buffer.allocUnsafe(chunkSize);
  let limit = size;
  let seen = 0;
  for (let first = true; limit > 0; first = false) {
    signal.throwIfAborted();
    if (buf.length < chunkSize) buf = Buffer.allocUnsafe(chunkSize);
    // Chunks start at an even offset, so UTF-16 units line up with them.
    const lowest = Math.max(0, limit - chunkSize);
    const chunkStart = lowest + (lowest % 2);
    const length = limit - chunkStart;
    const { bytesRead } = await handle.read(buf, 0, length, chunkStart);
    // A file that shrank under us: scan what is there (a first chunk's bytes are not handed back).
    const chunk = buf.subarray(0, bytesRead);
    let scanEnd = bytesRead;
    // Where the last line's text ends: before a trailing newline unit, if there is one.
    if (first && unit.previous(chunk, bytesRead, chunkStart) === bytesRead) scanEnd -= unit.size;
    const whole = first && bytesRead === length;
    for (let after = unit.previous(chunk, scanEnd, chunkStart); after !== -1; ) {
      if (++seen === count) {
        return whole
          ? { start: chunkStart + after, bytes: chunk.subarray(after) }
          : { start: chunkStart + after };
      }
      after = unit.previous(chunk, after - unit.size, chunkStart);
    }
    if (whole && chunkStart === 0) return { start: 0, bytes: chunk };
    limit = chunkStart;
    chunkSize = Math.min(CHUNK, chunkSize * 2);
  }
  return { start: 0 };
}

/** Decodes bytes already read; `undefined` once the text passes `maxChars`. */
export function decodeBytes(encoding: string, bytes: Buffer, maxChars: number): string | undefined {
  const decoder = createDecoder(encoding);
  const text = decoder.write(bytes) + decoder.end();
  return text.length > maxChars ? undefined : text;
}

/** Decodes bytes `start..end`, chunk by chunk; `undefined` once the text passes `maxChars`. */
export async function decodeRange(
  handle: FileHandle,
  encoding: string,
  start: number,
  end: number,
  maxChars: number,
  signal: AbortSignal,
): Promise<string | undefined> {
  const decoder = createDecoder(encoding);
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, end - start)));
  const parts: string[] = [];
  let collected = 0;
  for (let position = start; position < end; ) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, end - position), position);
    if (bytesRead === 0) break;
    const text = decoder.write(buf.subarray(0, bytesRead));
    parts.push(text);
    collected += text.length;
    if (collected > maxChars) return undefined;
    position += bytesRead;
  }
  const rest = decoder.end();
  parts.push(rest);
  if (collected + rest.length > maxChars) return undefined;
  return parts.join("");
}
