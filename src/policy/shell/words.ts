/**
 * @module policy/shell/words
 * Turns the text of bash word nodes into the values bash would pass to a program: backslash escapes in
 * unquoted words and double quotes, single quotes, and (for deny matching only) ANSI-C `$'...'` strings.
 */

/** Removes backslash escapes from an unquoted word (`x\ y` → `x y`; `\<newline>` disappears). */
export function unescapeUnquoted(text: string): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length) {
      const next = text[++i]!;
      if (next !== "\n") out += next;
    } else {
      out += ch;
    }
  }
  return out;
}

const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\", "\n"]);

/** Removes the escapes bash honours inside double quotes (only before `$`, backquote, `"`, `\`, newline). */
export function unescapeDoubleQuoted(text: string): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === "\\" && next !== undefined && DQ_ESCAPABLE.has(next)) {
      i++;
      if (next !== "\n") out += next;
    } else {
      out += ch;
    }
  }
  return out;
}

/** True when an unquoted word holds an unescaped glob character (`*`, `?`, `[`), i.e. pathname expansion. */
export function hasUnescapedGlob(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") i++;
    else if (ch === "*" || ch === "?" || ch === "[") return true;
  }
  return false;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Decodes an ANSI-C quoted string (`$'\x72m'` → `rm`). Used only so deny rules see through the trick; a
 * command using it is still unsafe for allow rules.
 */
export function decodeAnsiC(text: string): string {
  const body = text.startsWith("$'") && text.endsWith("'") ? text.slice(2, -1) : text;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const next = body[++i]!;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
    } else if (next === "x" || next === "u" || next === "U") {
      const max = next === "x" ? 2 : next === "u" ? 4 : 8;
      const hex = /^[0-9a-fA-F]+/.exec(body.slice(i + 1, i + 1 + max))?.[0] ?? "";
      if (hex === "") out += `\\${next}`;
      else {
        out += String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff));
        i += hex.length;
      }
    } else if (/[0-7]/.test(next)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i, i + 3))![0];
      out += String.fromCharCode(Number.parseInt(oct, 8) & 0xff);
      i += oct.length - 1;
    } else if (next === "c" && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f);
    } else {
      out += `\\${next}`;
    }
  }
  return out;
}
