/**
 * @module tools/files/prefix-lines
 * Builds grep's output, `path:N: text` per matching line, from each file's `N: text` lines as ripgrep printed
 * them. Done with strings, a search of 40,000 matching lines spent ~6 ms splitting, prefixing and joining
 * (and as much again collecting the garbage), after ripgrep had finished. Here the bytes are laid out once
 * in WebAssembly memory by `prefix-lines.wat` (a line feed search 16 bytes at a time and two copies per
 * line) and decoded as one text. A file with a line too long to show whole, and every file where the module
 * cannot compile (WebAssembly SIMD needs SSE4.1 on x86), is done with strings, to the same text.
 */
import { isAscii } from "node:buffer";
import { lazyModule, SCAN_SLACK, WASM_PAGE, Wasm, type WasmMemory } from "./wasm.js";

/** One file's lines to show behind a prefix. */
export interface ShownPart {
  prefix: string;
  /** `N: text` lines in UTF-8, each ending with a line feed (the last may lack it); CRs before it are dropped. */
  lines: Uint8Array;
  /** How many lines `lines` holds. */
  count: number;
}

/** `prefix-lines.wat`, assembled. */
const WASM =
  "AGFzbQEAAAABCwFgBn9/f39/fwF/Ag8BA2VudgZtZW1vcnkCAAEDAgEABwoBBnByZWZpeAAACs8BAcwBAQV/IAAgAWohBgJAA0AgACAGTw0BIAAhBwJAA0AgByAGTwRAIAYhCQwCCyAH/QAEAEEK/Q/9I/1kIQggCARAIAcgCGhqIQkgCSAGSwRAIAYhCQsMAgsgB0EQaiEHDAALCyAEIAIgA/wKAAAgBCADaiEEIAkgAGshCiAKQQBHIAlBAWstAABBDUZxBEAgCkEBayEKCyAKIAVLBEBBfw8LIAQgACAK/AoAACAEIApqIQQgBEEKOgAAIARBAWohBCAJQQFqIQAMAAsLIAQL";

type PrefixFunction = (
  src: number,
  len: number,
  pre: number,
  preLen: number,
  dst: number,
  max: number,
) => number;
interface PrefixInstance {
  memory: WasmMemory;
  prefix: PrefixFunction;
}

const compiledModule = lazyModule(WASM);

/**
 * The last instance, while nothing else holds it: a new WebAssembly memory costs ~2 ms to set up (its
 * address space reserved, its pages faulted in), more than laying out a large search. After a garbage
 * collection it is gone, so a large search's bytes are not kept.
 */
let lastInstance: WeakRef<PrefixInstance> | undefined;

/**
 * The parts one after another, as one text: each line as the part's prefix and the line (a CR before its
 * line feed dropped), ending with a line feed. A text (what follows the line's first `: `) longer than
 * `maxTextChars` UTF-16 units is cut there and marked with `…`, never between a surrogate pair's halves.
 */
export function joinShownParts(parts: readonly ShownPart[], maxTextChars: number): string {
  const module = compiledModule();
  return module === null
    ? joinShownPartsWithStrings(parts, maxTextChars)
    : joinWithModule(module, parts, maxTextChars);
}

/** The same text built with strings: where the module cannot run, and as its tests' reference. */
export function joinShownPartsWithStrings(parts: readonly ShownPart[], maxTextChars: number): string {
  return parts.map((part) => partWithStrings(part, maxTextChars)).join("");
}

function partWithStrings(part: ShownPart, maxTextChars: number): string {
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

/** An instance with at least `bytes` of memory: the last one (grown if needed) or a new one. */
function instanceWith(module: object, bytes: number): PrefixInstance {
  const pages = Math.ceil(bytes / WASM_PAGE) || 1;
  const last = lastInstance?.deref();
  if (last !== undefined) {
    const missing = pages - last.memory.buffer.byteLength / WASM_PAGE;
    if (missing > 0) last.memory.grow(missing);
    return last;
  }
  const memory = new Wasm.Memory({ initial: pages });
  const { exports } = new Wasm.Instance(module, { env: { memory } });
  const made = { memory, prefix: exports["prefix"] as PrefixFunction };
  lastInstance = new WeakRef(made);
  return made;
}

/**
 * Lays the parts out in memory: prefixes first, then room for the largest part's lines, then the output. A
 * part the module gives back (a line longer than `maxTextChars` bytes may need cutting) is written from its
 * string form instead.
 */
function joinWithModule(module: object, parts: readonly ShownPart[], maxTextChars: number): string {
  const prefixLengths = parts.map((part) => Buffer.byteLength(part.prefix));
  // Each line gains the prefix and, when the last one lacks it, a line feed.
  const room = (i: number) => parts[i]!.lines.length + parts[i]!.count * prefixLengths[i]! + 1;
  let prefixBytes = 0;
  let linesRoom = 0;
  let outputRoom = 0;
  for (let i = 0; i < parts.length; i++) {
    prefixBytes += prefixLengths[i]!;
    linesRoom = Math.max(linesRoom, parts[i]!.lines.length);
    outputRoom += room(i);
  }
  const linesAt = prefixBytes;
  const outputAt = linesAt + linesRoom + SCAN_SLACK;
  const instance = instanceWith(module, outputAt + outputRoom);
  let bytes = Buffer.from(instance.memory.buffer);
  // A part's string form may be larger than the room counted for it (a bad byte becomes a 3-byte U+FFFD).
  const ensure = (size: number) => {
    if (size <= bytes.length) return;
    instance.memory.grow(Math.ceil((size - bytes.length) / WASM_PAGE));
    bytes = Buffer.from(instance.memory.buffer);
  };
  // The prefixes in one write, not one per part.
  bytes.write(parts.map((part) => part.prefix).join(""), 0);
  let prefixAt = 0;
  let end = outputAt;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const prefixLength = prefixLengths[i]!;
    ensure(end + room(i));
    bytes.set(part.lines, linesAt);
    const done = instance.prefix(linesAt, part.lines.length, prefixAt, prefixLength, end, maxTextChars);
    prefixAt += prefixLength;
    if (done !== -1) {
      end = done;
      continue;
    }
    const text = Buffer.from(partWithStrings(part, maxTextChars));
    ensure(end + text.length);
    end += text.copy(bytes, end);
  }
  // Plain ASCII (most code) decodes as Latin-1, a plain copy, a third faster than UTF-8 decoding.
  const output = bytes.subarray(outputAt, end);
  return output.toString(isAscii(output) ? "latin1" : "utf8");
}
