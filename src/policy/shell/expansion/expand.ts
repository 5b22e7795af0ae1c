/**
 * @module policy/shell/expansion/expand
 * What one word of a command becomes once bash has expanded it: brace expansion (lexical), then pathname
 * expansion against the folder the command runs in. The analysis checks these words, and the command then
 * runs with exactly them, written out and quoted (`shellQuote`), so a file planted after the decision changes
 * nothing. A word whose expansion this cannot reproduce is `refused`, with the reason; a word with no brace
 * or glob is `plain` (the analysis reads it as before).
 */
import { resolve } from "node:path";
import { braceExpand, NotReproduced } from "./brace.js";
import { expandGlob, hasGlob } from "./glob.js";
import { type LexedWord, lexWord, wordValue } from "./lex.js";

/** Where and how far words may be expanded, for one command line. */
export interface ExpansionContext {
  /** The folder the command line starts in (absolute); undefined: no workspace, globs are not expanded. */
  readonly cwd: string | undefined;
  /** The workspace roots (canonical). */
  readonly roots: readonly string[];
  /** What the whole command line may still cost: words made, folder entries read. */
  readonly budget: { words: number; entries: number };
  /** Paths globs do not match although they exist (see `GlobContext.hidden`). */
  readonly hidden?: (path: string) => boolean;
}

/** The default budget of one command line. */
export const EXPANSION_BUDGET = Object.freeze({ words: 4096, entries: 20_000 });

/** What a word becomes. */
export type WordExpansion =
  | { readonly kind: "plain" }
  | { readonly kind: "expanded"; readonly words: readonly string[] }
  | { readonly kind: "refused"; readonly reason: string };

const PLAIN: WordExpansion = Object.freeze({ kind: "plain" });
const MAYBE = /[{*?[]/;

/** Tilde expansion bash would apply to a rewritten word: a leading `~`, or one after `=` or `:`. */
function tildeApplies(word: LexedWord): boolean {
  return word.chars.some(
    (ch, i) =>
      ch.c === "~" &&
      !ch.quoted &&
      (i === 0 ||
        (!word.chars[i - 1]!.quoted && (word.chars[i - 1]!.c === "=" || word.chars[i - 1]!.c === ":"))),
  );
}

/**
 * Expands one word's source text. `dir` is the folder the command runs in, relative to `context.cwd`
 * (`null`: not known, after `cd -`); `globs` false leaves patterns as written (text another shell expands).
 * @example expandWord("{--output=F,HEAD}", ".", context, true) // { kind: "expanded", words: ["--output=F", "HEAD"] }
 */
export function expandWord(
  raw: string,
  dir: string | null,
  context: ExpansionContext,
  globs: boolean,
): WordExpansion {
  if (!MAYBE.test(raw)) return PLAIN;
  const lexed = lexWord(raw);
  if (lexed === undefined) return PLAIN;
  try {
    const braced = lexed.chars.some((ch) => ch.c === "{" && !ch.quoted)
      ? braceExpand(raw, context.budget.words)
      : [raw];
    const changed = braced.length !== 1 || braced[0] !== raw;
    const words: string[] = [];
    let globbed = false;
    for (const text of braced) {
      const word = lexWord(text);
      if (word === undefined) throw new NotReproduced("a brace expansion result could not be read");
      const glob = globs && hasGlob(word);
      if ((changed || glob) && tildeApplies(word)) throw new NotReproduced("tilde expansion");
      if (!glob) {
        // An unquoted empty result is no word at all (`x{,}` is one word, `{,}` none).
        if (word.chars.length > 0 || word.quotedPart) words.push(wordValue(word));
        continue;
      }
      globbed = true;
      words.push(...expandGlob(word, globContext(dir, context)));
    }
    if (!changed && !globbed) return PLAIN;
    context.budget.words -= words.length;
    if (context.budget.words < 0) throw new NotReproduced("it expands to too many words");
    return { kind: "expanded", words };
  } catch (error) {
    if (error instanceof NotReproduced) return { kind: "refused", reason: error.message };
    throw error;
  }
}

function globContext(dir: string | null, context: ExpansionContext) {
  if (context.cwd === undefined) throw new NotReproduced("no workspace folder to expand its glob in");
  if (dir === null) throw new NotReproduced("the folder it runs in is not known (after cd)");
  return {
    cwd: resolve(context.cwd, dir),
    roots: context.roots,
    budget: context.budget,
    ...(context.hidden ? { hidden: context.hidden } : {}),
  };
}

/**
 * A word written so bash reads it back as exactly this word, with no expansion: as is when it is made of
 * characters bash treats literally, else in single quotes. A command's first word is quoted when it holds
 * `=` (bash would read `A=B` there as an assignment).
 * @example shellQuote("-i") // "-i"
 * @example shellQuote("a b") // "'a b'"
 */
export function shellQuote(word: string, first = false): string {
  if (/^[A-Za-z0-9_/.:@%+,=-]+$/.test(word) && !(first && word.includes("="))) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
