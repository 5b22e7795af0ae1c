/**
 * @module tools/files/newlines
 * Counting line feeds fast, for read_file's forward line scan: walking them with `indexOf` costs ~25 ns per
 * line (~60 ms to pass 2.6 million lines of a 216 MB file), while this WebAssembly function compares 16
 * bytes per step (~20 ms for the same file, reads included), so chunks before the wanted lines are skipped
 * whole. The source is `newlines.wat` (its test checks that these bytes are that file assembled). Where the
 * runtime cannot compile it (WebAssembly SIMD needs SSE4.1 on x86), there is no counter and the scan walks
 * every line as before. grep's parse of ripgrep's output counts lines and finds where a file's lines end with
 * it too ({@link ChunkScan}).
 */
import { lazyModule, SCAN_SLACK, Wasm } from "./wasm.js";

/** `newlines.wat`, assembled. */
const WASM =
  "AGFzbQEAAAABBwFgAn9/AX8DAwIAAAUEAQEQEAcZAwZtZW1vcnkCAAVjb3VudAAABHBhaXIAAQqiAQI3AQJ/IAAgAWohAgJAA0AgACACTw0BIAMgAP0ABABBCv0P/SP9ZGlqIQMgAEEQaiEADAALCyADC2gBBX8gACECIAAgAWohAwJAA0AgAiADTw0BIAL9AAQAQQr9D/0j/WQhBCAEIARBAXQgBnJxIQUgBQRAIAIgBWhqIABrIQIgAiABTw0CIAIPCyAEQQ92QQFxIQYgAkEQaiECDAALC0F/Cw==";

/** The module's memory: the most a chunk may hold. */
export const COUNTER_BYTES = 1024 * 1024;

const compiledModule = lazyModule(WASM);

type Scan = (ptr: number, len: number) => number;

/** A buffer of {@link COUNTER_BYTES} to read chunks into, and searches for line feeds in it. */
export class NewlineCounter {
  private constructor(
    /** Where a chunk is read to (the module's own memory). */
    readonly buffer: Buffer,
    private readonly countAligned: Scan,
    private readonly firstPair: Scan,
  ) {}

  /** A counter with its own memory, or undefined where the module cannot run here. */
  static create(): NewlineCounter | undefined {
    const module = compiledModule();
    if (module === null) return undefined;
    const { exports } = new Wasm.Instance(module);
    const memory = exports["memory"] as { buffer: ArrayBuffer };
    // The memory cannot grow (its maximum is its size), so this view stays valid.
    const buffer = Buffer.from(memory.buffer, 0, COUNTER_BYTES);
    return new NewlineCounter(buffer, exports["count"] as Scan, exports["pair"] as Scan);
  }

  /** Line feeds (0x0A bytes) among the buffer's first `length` bytes. */
  count(length: number): number {
    return this.countBetween(0, length);
  }

  /** Line feeds among the buffer's bytes `start..end`. */
  countBetween(start: number, end: number): number {
    const aligned = start + ((end - start) & ~15);
    let n = this.countAligned(start, aligned - start);
    for (let i = aligned; i < end; i++) if (this.buffer[i] === 10) n++;
    return n;
  }

  /**
   * Where the first two line feeds in a row among bytes `start..end` begin, or -1. The 15 bytes after `end`
   * are read (so `end` is at most {@link COUNTER_BYTES} - 15) but never counted.
   */
  pairBetween(start: number, end: number): number {
    const at = this.firstPair(start, end - start);
    return at === -1 ? -1 : start + at - 1;
  }
}

/** The empty line after a file's lines, for the search without the module. */
const PAIR = Buffer.from("\n\n");

let shared: NewlineCounter | undefined;
/** The scan whose chunk the shared counter's memory holds. */
let holder: ChunkScan | undefined;

/**
 * Line feed searches over one chunk of ripgrep's output, for grep's parse: in one counter shared by every
 * scan (a scan copies its chunk in again when another one has used the memory since), or with `indexOf`
 * where the module cannot run or the chunk is larger than the memory. Searching for two line feeds in a row
 * with `indexOf` was a third of the parse: most candidates are single line feeds.
 */
export class ChunkScan {
  constructor(private readonly chunk: Uint8Array) {}

  /** Line feeds among the chunk's bytes `start..end`. */
  lineFeeds(start: number, end: number): number {
    const counter = this.counter();
    if (counter !== undefined) return counter.countBetween(start, end);
    let n = 0;
    for (let i = this.chunk.indexOf(10, start); i !== -1 && i < end; i = this.chunk.indexOf(10, i + 1)) n++;
    return n;
  }

  /** Where the first two line feeds in a row at or after `from` begin, or -1. */
  pair(from: number): number {
    const counter = this.counter();
    if (counter !== undefined) return counter.pairBetween(from, this.chunk.length);
    return Buffer.from(this.chunk.buffer, this.chunk.byteOffset, this.chunk.length).indexOf(PAIR, from);
  }

  /** The shared counter holding this chunk, or undefined when the searches run in JS. */
  private counter(): NewlineCounter | undefined {
    if (this.chunk.length > COUNTER_BYTES - SCAN_SLACK || compiledModule() === null) return undefined;
    shared ??= NewlineCounter.create();
    if (shared === undefined) return undefined;
    if (holder !== this) {
      shared.buffer.set(this.chunk);
      holder = this;
    }
    return shared;
  }
}
