/**
 * @module policy/shell/expansion/brace
 * Brace expansion as bash does it (`braces.c`): on a word's source text, quotes still in it, `a{b,c}d` →
 * `abd acd`, sequences `{1..10..2}`, `{01..10}`, `{a..e}`, nested braces, and the text bash leaves alone
 * (`{a}`, `{a,b`, `'{a,b}'`, `\{a,b}`). Purely lexical: no file system. Each result is a word's source text,
 * to be read by `lex.ts`. Compared with bash itself in `brace.test.ts`.
 */

/** Thrown for a word whose expansion the analysis does not reproduce; the message says why. */
export class NotReproduced extends Error {}

/** A sequence's bounds beyond this are refused: bash's own limits are far above any real use. */
const MAX_SEQUENCE_VALUE = 2 ** 31 - 1;

const isWhitespace = (c: string | undefined) => c === undefined || c === " " || c === "\t" || c === "\n";
const isAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Finds, from `start`, the first unquoted `satisfy` at brace level 0 (bash's `brace_gobbler`). For `}` it
 * must follow a top-level `,` or `..`. Returns the index, or -1 when there is none.
 */
function gobble(text: string, start: number, satisfy: "{" | "}" | ","): number {
  let level = 0;
  let quoted = "";
  let commas = satisfy === "}" ? 0 : 1;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && (quoted === "" || quoted === '"')) {
      i++;
      continue;
    }
    if (quoted !== "") {
      if (c === quoted) quoted = "";
      continue;
    }
    if (c === '"' || c === "'") {
      quoted = c;
      continue;
    }
    if (c === satisfy && level === 0 && commas > 0) {
      // An open brace alone between blanks, or `{}` after a blank, is not an expansion.
      if (
        c === "{" &&
        (i === 0 || isWhitespace(text[i - 1])) &&
        (isWhitespace(text[i + 1]) || text[i + 1] === "}")
      )
        continue;
      return i;
    }
    if (c === "{") level++;
    else if (c === "}" && level > 0) level--;
    else if (
      satisfy === "}" &&
      level === 0 &&
      (c === "," || (text.startsWith("..", i) && text[i + 2] !== "}"))
    )
      commas++;
  }
  return -1;
}

/** Counts results against the caller's limit. */
interface Budget {
  left: number;
}

function spend(budget: Budget, n: number): void {
  budget.left -= n;
  if (budget.left < 0) throw new NotReproduced("it expands to too many words");
}

/**
 * The words a word's source text becomes by brace expansion (the text itself when it has none).
 * @throws NotReproduced when there would be more than `limit` words, or for what the analysis does not follow.
 * @example braceExpand("x{a,b}y") // ["xay", "xby"]
 * @example braceExpand("{01..3}") // ["01", "02", "03"]
 */
export function braceExpand(text: string, limit = 4096): string[] {
  return expand(text, { left: limit });
}

function expand(text: string, budget: Budget): string[] {
  // The first `{` that opens a valid expansion; one that does not is skipped (`{a}{b,c}`).
  let open = gobble(text, 0, "{");
  let close = -1;
  while (open >= 0) {
    close = gobble(text, open + 1, "}");
    if (close >= 0) break;
    open = gobble(text, open + 1, "{");
  }
  if (open < 0) return [text];
  const preamble = text.slice(0, open);
  const amble = text.slice(open + 1, close);
  const postamble = text.slice(close + 1);
  let middle: string[];
  if (hasSeparator(amble)) {
    middle = expandAmble(amble, budget);
  } else {
    const sequence = expandSequence(amble, budget);
    if (sequence !== undefined) middle = sequence;
    else if (postamble !== "") middle = [text.slice(open, close + 1)];
    else return [text];
  }
  const tails = postamble === "" ? [""] : expand(postamble, budget);
  const out: string[] = [];
  spend(budget, middle.length * tails.length);
  for (const m of middle) for (const t of tails) out.push(preamble + m + t);
  return out;
}

/** Whether the amble holds a comma (bash skips only backslash escapes here, not quotes). */
function hasSeparator(amble: string): boolean {
  for (let j = 0; j < amble.length; j++) {
    if (amble[j] === "\\") j++;
    else if (amble[j] === ",") return true;
  }
  return false;
}

/** `a,b{c,d}`: each comma-separated part, itself brace-expanded. */
function expandAmble(amble: string, budget: Budget): string[] {
  const out: string[] = [];
  for (let start = 0; ; ) {
    const comma = gobble(amble, start, ",");
    const part = amble.slice(start, comma < 0 ? undefined : comma);
    out.push(...expand(part, budget));
    if (comma < 0) return out;
    start = comma + 1;
  }
}

/** bash's `legal_number`: an optional sign and digits, blanks allowed around. */
function legalNumber(text: string): number | undefined {
  const m = /^[ \t\n]*([+-]?\d+)[ \t\n]*$/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * `{x..y}` or `{x..y..incr}` (bash's `expand_seqterm` and `mkseq`): integers, zero-padded when a bound is
 * written with a leading zero, or single letters. Undefined when the amble is not a sequence.
 * @throws NotReproduced for a letter sequence through `[`, `\`, `]`, `^`, `_` or a backquote: bash reads
 *   those characters again as quoting and globbing (`{Z..a}`), which the analysis does not follow.
 */
function expandSequence(amble: string, budget: Budget): string[] | undefined {
  const at = amble.indexOf("..");
  if (at < 0) return undefined;
  const lhs = amble.slice(0, at);
  const rhs = amble.slice(at + 2);
  if (lhs === "" || rhs === "") return undefined;
  const lhsNumber = legalNumber(lhs);
  const lhsType = lhsNumber !== undefined ? "int" : isAlpha(lhs[0]) && lhs.length === 1 ? "char" : "bad";
  // The right side: a number or a letter, then optionally `..INCR`.
  let rhsType: "int" | "char" | "bad";
  let rhsEnd: number;
  let rhsNumber = 0;
  const numeric = /^[+-]?\d+/.exec(rhs);
  if (isDigit(rhs[0]) || ((rhs[0] === "+" || rhs[0] === "-") && isDigit(rhs[1]))) {
    rhsType = "int";
    rhsEnd = numeric![0].length;
    rhsNumber = Number(numeric![0]);
    if (rhsEnd < rhs.length && rhs[rhsEnd] !== ".") rhsType = "bad";
  } else if (isAlpha(rhs[0]) && (rhs.length === 1 || rhs[1] === ".")) {
    rhsType = "char";
    rhsEnd = 1;
  } else return undefined;
  let incr = 1;
  let rest = rhs.slice(rhsEnd);
  if (rest.startsWith("..") && rest.length > 2) {
    // strtoimax: blanks, a sign, digits; with no digits nothing is read and what is left makes it bad.
    const m = /^[ \t\n]*[+-]?\d+/.exec(rest.slice(2));
    if (m) {
      incr = Number(m[0]);
      rest = rest.slice(2 + m[0].length);
    }
  }
  if (rest !== "" || rhsType === "bad" || lhsType === "bad" || lhsType !== rhsType) return undefined;
  if (lhsType === "char") return letterSequence(lhs, rhs[0]!, incr, budget);
  const width = zeroWidth(lhs, rhs.slice(0, rhsEnd));
  const start = lhsNumber!;
  if (
    Math.abs(start) > MAX_SEQUENCE_VALUE ||
    Math.abs(rhsNumber) > MAX_SEQUENCE_VALUE ||
    Math.abs(incr) > MAX_SEQUENCE_VALUE
  )
    throw new NotReproduced("a brace sequence bound is out of range");
  return sequence(start, rhsNumber, incr, budget).map((n) => (width > 0 ? padded(n, width) : String(n)));
}

/** The width of a zero-padded sequence (0: not padded), as bash computes it from the bounds as written. */
function zeroWidth(lhs: string, rhs: string): number {
  let width = 0;
  const padded = (s: string) =>
    (s.length > 1 && s[0] === "0") || (s.length > 2 && s[0] === "-" && s[1] === "0");
  if (padded(lhs)) width = lhs.length;
  if (padded(rhs) && width < rhs.length) width = rhs.length;
  if (width > 0) width = Math.max(width, lhs.length, rhs.length);
  return width;
}

/** `printf("%0*d", width, n)`. */
function padded(n: number, width: number): string {
  return n < 0 ? `-${String(-n).padStart(width - 1, "0")}` : String(n).padStart(width, "0");
}

/** The values from `start` to `end` by `incr` (its sign follows the direction; 0 counts as 1). */
function sequence(start: number, end: number, incr: number, budget: Budget): number[] {
  let step = incr === 0 ? 1 : Math.abs(incr);
  if (start > end) step = -step;
  const count = Math.floor(Math.abs(end - start) / Math.abs(step)) + 1;
  spend(budget, count);
  const out: number[] = [];
  for (let i = 0, n = start; i < count; i++, n += step) out.push(n);
  return out;
}

function letterSequence(from: string, to: string, incr: number, budget: Budget): string[] {
  const values = sequence(from.charCodeAt(0), to.charCodeAt(0), incr, budget);
  const letters = values.map((v) => String.fromCharCode(v));
  if (!letters.every(isAlpha)) throw new NotReproduced("a brace sequence runs through punctuation");
  return letters;
}
