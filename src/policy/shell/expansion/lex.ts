/**
 * @module policy/shell/expansion/lex
 * Reads the source text of one bash word into its characters after quote removal, each marked as quoted
 * (inside `'…'` or `"…"`, or after a backslash) or not. Only unquoted characters are special to brace and
 * pathname expansion, so this is what the expanders work on. Words holding another expansion (`$…`,
 * backquotes, `$'…'`) are not read: the analysis does not reproduce those.
 */

/** One character of a word as bash reads it; `quoted` when quoting made it literal. */
export interface WordChar {
  /** One code point. */
  readonly c: string;
  readonly quoted: boolean;
}

/** A word read from its source text. */
export interface LexedWord {
  readonly chars: readonly WordChar[];
  /** Whether the word had a quoted part (`''`, `"…"`): an empty word then still counts as one. */
  readonly quotedPart: boolean;
}

/** Characters a backslash escapes inside double quotes. */
const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\", "\n"]);

/**
 * The characters of a word's source text, or undefined when it holds an expansion other than braces and
 * globs, or quoting that does not close.
 * @example lexWord(`'*'.md*`) // chars "*", ".", "m", "d" quoted then "*" unquoted
 */
export function lexWord(raw: string): LexedWord | undefined {
  const chars: WordChar[] = [];
  let quotedPart = false;
  let i = 0;
  const push = (c: string, quoted: boolean) => chars.push({ c, quoted });
  while (i < raw.length) {
    const code = raw.codePointAt(i)!;
    const ch = String.fromCodePoint(code);
    if (ch === "\\") {
      const next = raw.codePointAt(i + 1);
      // A backslash at the very end of a word stays a backslash.
      if (next === undefined) {
        push("\\", false);
        i++;
        continue;
      }
      const escaped = String.fromCodePoint(next);
      if (escaped !== "\n") push(escaped, true);
      i += 1 + escaped.length;
    } else if (ch === "'") {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) return undefined;
      for (const c of raw.slice(i + 1, end)) push(c, true);
      quotedPart = true;
      i = end + 1;
    } else if (ch === '"') {
      const end = readDoubleQuoted(raw, i + 1, push);
      if (end === undefined) return undefined;
      quotedPart = true;
      i = end + 1;
    } else if (ch === "$" || ch === "`") {
      return undefined;
    } else {
      push(ch, false);
      i += ch.length;
    }
  }
  return { chars, quotedPart };
}

/** Reads `"…"` from `from` (after the opening quote); returns the closing quote's index. */
function readDoubleQuoted(
  raw: string,
  from: number,
  push: (c: string, quoted: boolean) => void,
): number | undefined {
  let i = from;
  while (i < raw.length) {
    const ch = String.fromCodePoint(raw.codePointAt(i)!);
    if (ch === '"') return i;
    if (ch === "$" || ch === "`") return undefined;
    if (ch === "\\" && DQ_ESCAPABLE.has(raw[i + 1] ?? "")) {
      if (raw[i + 1] !== "\n") push(raw[i + 1]!, true);
      i += 2;
      continue;
    }
    push(ch, true);
    i += ch.length;
  }
  return undefined;
}

/** The word's value after quote removal. */
export function wordValue(word: LexedWord): string {
  let out = "";
  for (const ch of word.chars) out += ch.c;
  return out;
}
