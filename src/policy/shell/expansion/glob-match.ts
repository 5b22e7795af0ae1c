/**
 * @module policy/shell/expansion/glob-match
 * Matches one path component of a bash pattern against a file name, as bash's default globbing does (no
 * extglob, case-sensitive, `globasciiranges` on): unquoted `*`, `?` and bracket expressions (`[abc]`,
 * `[a-z]`, `[!x]`, `[^x]`, a leading `]` taken literally); quoted characters are literal. Bracket forms
 * the analysis does not reproduce (`[[:alpha:]]`, `[[=a=]]`, `[[.a.]]`, quoted characters inside brackets)
 * are refused. Linear in practice: `*` backtracks to its last position only.
 */
import { NotReproduced } from "./brace.js";
import type { WordChar } from "./lex.js";

type Token =
  | { readonly kind: "char"; readonly c: string }
  | { readonly kind: "any" }
  | { readonly kind: "star" }
  | { readonly kind: "set"; readonly negated: boolean; readonly members: readonly Member[] };

type Member = string | readonly [from: number, to: number];

/** A compiled component pattern. */
export interface ComponentPattern {
  readonly tokens: readonly Token[];
  /** Whether the pattern starts with a `.` (only then does it match names that start with one). */
  readonly leadingDot: boolean;
}

/** Whether unquoted characters make this component a pattern (bash's `unquoted_glob_pattern_p`). */
export function componentHasGlob(chars: readonly WordChar[]): boolean {
  let open = false;
  for (const ch of chars) {
    if (ch.quoted) continue;
    if (ch.c === "*" || ch.c === "?") return true;
    if (ch.c === "[") open = true;
    else if (ch.c === "]" && open) return true;
  }
  return false;
}

/** Reads a bracket expression starting after `[` at `from`; undefined when it does not close. */
function bracket(chars: readonly WordChar[], from: number): { token: Token; end: number } | undefined {
  let i = from;
  let negated = false;
  if (!chars[i]?.quoted && (chars[i]?.c === "!" || chars[i]?.c === "^")) {
    negated = true;
    i++;
  }
  const start = i;
  const members: Member[] = [];
  for (; i < chars.length; i++) {
    const ch = chars[i]!;
    if (!ch.quoted && ch.c === "]" && i > start) return { token: { kind: "set", negated, members }, end: i };
    if (ch.quoted) throw new NotReproduced("a bracket expression holds quoted characters");
    if (ch.c === "[" && /^[:=.]$/.test(chars[i + 1]?.c ?? ""))
      throw new NotReproduced("a bracket expression uses a character class");
    const next = chars[i + 1];
    const after = chars[i + 2];
    if (next?.c === "-" && !next.quoted && after !== undefined && !(after.c === "]" && !after.quoted)) {
      if (after.quoted) throw new NotReproduced("a bracket expression holds quoted characters");
      const from = ch.c.codePointAt(0)!;
      const to = after.c.codePointAt(0)!;
      members.push([from, to]);
      i += 2;
    } else members.push(ch.c);
  }
  return undefined;
}

/**
 * Compiles one path component (no `/` in it).
 * @throws NotReproduced for bracket forms the analysis does not follow.
 */
export function compileComponent(chars: readonly WordChar[]): ComponentPattern {
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (!ch.quoted && ch.c === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (!ch.quoted && ch.c === "?") tokens.push({ kind: "any" });
    else if (!ch.quoted && ch.c === "[") {
      const found = bracket(chars, i + 1);
      if (found === undefined) tokens.push({ kind: "char", c: "[" });
      else {
        tokens.push(found.token);
        i = found.end;
      }
    } else tokens.push({ kind: "char", c: ch.c });
  }
  return { tokens, leadingDot: chars[0]?.c === "." };
}

function matchesOne(token: Token, c: string): boolean {
  switch (token.kind) {
    case "char":
      return token.c === c;
    case "any":
      return true;
    case "set": {
      const code = c.codePointAt(0)!;
      const hit = token.members.some((m) => (typeof m === "string" ? m === c : code >= m[0] && code <= m[1]));
      return hit !== token.negated;
    }
    default:
      return false;
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Whether a file name matches. A name starting with `.` matches only a pattern starting with `.` (bash's
 * default: dot files are not matched by `*`, `?` or a bracket).
 * @example matchComponent(compileComponent(lexWord("*.md")!.chars), "README.md") // true
 */
export function matchComponent(pattern: ComponentPattern, name: string): boolean {
  if (name.startsWith(".") && !pattern.leadingDot) return false;
  // By code point; a name without surrogates is indexed as it is (no array made per file name).
  const chars = SURROGATE.test(name) ? Array.from(name) : name;
  const { tokens } = pattern;
  let t = 0;
  let n = 0;
  let starT = -1;
  let starN = 0;
  while (n < chars.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind === "star") {
      starT = t++;
      starN = n;
    } else if (token !== undefined && matchesOne(token, chars[n]!)) {
      t++;
      n++;
    } else if (starT >= 0) {
      t = starT + 1;
      n = ++starN;
    } else return false;
  }
  while (tokens[t]?.kind === "star") t++;
  return t === tokens.length;
}
