/**
 * @module tools/shell/display
 * Makes a command safe to show a person who must approve it: control characters, bidi controls, zero-width
 * and other invisible or look-alike space characters are written out, and runs of spaces and tabs collapse,
 * so what the person reads is what will run.
 */

// Invisible, format, bidi, variation-selector and unusual space characters: shown as <U+XXXX>.
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x80, 0xa0],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x17b4, 0x17b5],
  [0x180b, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];
const isInvisible = (code: number) => INVISIBLE_RANGES.some(([lo, hi]) => code >= lo && code <= hi);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, "0");

function showChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (code < 0x20 || code === 0x7f) return `\\x${hex(code, 2).toLowerCase()}`;
  return `<U+${hex(code, 4)}>`;
}

/**
 * The command as it will run, made safe to display.
 * @example displayCommand("ls\u202E -la\x1b[2J") // "ls<U+202E> -la\\x1b[2J"
 */
export function displayCommand(command: string): string {
  let out = "";
  for (const ch of command) {
    const code = ch.codePointAt(0)!;
    if (ch === " " || ch === "\t") {
      if (!out.endsWith(" ")) out += " ";
    } else if (code < 0x20 || code === 0x7f || isInvisible(code) || LONE_SURROGATE.test(ch)) {
      out += showChar(ch);
    } else {
      out += ch;
    }
  }
  return out.trim();
}
