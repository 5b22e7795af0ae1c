/**
 * @module cli/chat/paste
 * Bracketed paste for `toolgate chat`: the terminal is asked to mark pasted text (`ESC[?2004h`), and the
 * keys reach readline through a filter that drops the markers (`ESC[200~` … `ESC[201~`) and turns each
 * newline inside a paste into `␤`, so a pasted block stays one line at the prompt — shown with `␤` where its
 * lines break, editable, sent with Enter as one task (its newlines restored). The filter also carries the
 * terminal's raw mode, so readline sets and restores it as it would on the terminal itself.
 */

import { Transform, type TransformCallback } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** Stands for a newline of pasted text while it sits at the prompt. */
export const PASTED_NEWLINE = "␤";
/** Asks the terminal to mark pasted text. */
export const PASTE_ON = "\x1b[?2004h";
/** Back to the terminal's default. */
export const PASTE_OFF = "\x1b[?2004l";

const START = "\x1b[200~";
const END = "\x1b[201~";

/** The task a prompt line stands for: pasted newlines are newlines again. */
export function pastedText(line: string): string {
  return line.split(PASTED_NEWLINE).join("\n");
}

/** What readline looks for on its input to treat it as a terminal. */
interface TerminalInput {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/**
 * The keys of `terminal` with pasted blocks made single lines; readline reads this instead of the terminal.
 * @example const input = pasteFilter(process.stdin); process.stdin.pipe(input); createInterface({ input, … })
 */
export function pasteFilter(terminal: TerminalInput): Transform & TerminalInput {
  let pasting = false;
  // The end of a chunk that may be the start of a marker split across two reads.
  let held = "";
  // A character split across two reads is decoded whole.
  const decoder = new StringDecoder("utf8");
  const filter = new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback) {
      let text = held + (typeof chunk === "string" ? chunk : decoder.write(chunk));
      held = "";
      const partial = partialMarker(text);
      if (partial > 0) {
        held = text.slice(text.length - partial);
        text = text.slice(0, text.length - partial);
      }
      let out = "";
      for (;;) {
        const marker = pasting ? END : START;
        const at = text.indexOf(marker);
        const piece = at < 0 ? text : text.slice(0, at);
        out += pasting ? piece.replace(/\r\n|\r|\n/g, PASTED_NEWLINE) : piece;
        if (at < 0) break;
        pasting = !pasting;
        text = text.slice(at + marker.length);
      }
      done(null, out);
    },
    flush(done: TransformCallback) {
      done(null, held + decoder.end());
    },
  }) as Transform & TerminalInput;
  filter.isTTY = terminal.isTTY === true;
  Object.defineProperty(filter, "isRaw", { get: () => terminal.isRaw === true });
  if (typeof terminal.setRawMode === "function")
    filter.setRawMode = (mode: boolean) => {
      terminal.setRawMode?.(mode);
      return filter;
    };
  return filter;
}

/** Length of the longest end of `text` that begins a marker (at least `ESC[`), 0 if none. */
function partialMarker(text: string): number {
  for (let n = Math.min(START.length - 1, text.length); n >= 2; n--) {
    const tail = text.slice(text.length - n);
    if (START.startsWith(tail) || END.startsWith(tail)) return n;
  }
  return 0;
}
