/**
 * @module policy/shell/plain
 * The fast path of command analysis: a command that is only plain words separated by blanks (`git status
 * --short`, `ls -la src/`) parses to exactly one simple command whose words are its text split on blanks, so
 * the grammar need not run. Anything with quoting, expansion, redirection, operators, an assignment or a
 * leading keyword takes the full parse. `plain.test.ts` checks both paths agree on generated commands.
 */

// Word characters bash treats literally: no quotes, `$`, globs, `~`, `#`, braces, operators. The first word is
// letters, digits, `_`, `.`, `/` and `-`, starting with one of the first five; an argument may also hold
// `:@%+,=` but not start with `=`. The narrower forms are where tree-sitter-bash departs from bash (`x+:a` and
// `- a=b` parse as errors or as nothing, a lone `==` as an operator), found by fuzzing both paths: the fast path
// must never be more lenient than the parser.
const PLAIN = /^[\w./][\w./-]*(?:[ \t]+[\w./:@%+,-][\w./:@%+,=-]*)*[ \t]*$/;

// First words the grammar reads as syntax (reserved words) or as declarations, not as a program name
// (`unsetenv` is csh's, but tree-sitter-bash parses it as `unset`).
const SYNTAX_LEAD = new Set([
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
  "declare",
  "export",
  "local",
  "readonly",
  "typeset",
  "unset",
  "unsetenv",
]);

/**
 * The words of a command made only of plain words, or undefined when it needs the parser.
 * @example plainWords("git status --short") // ["git", "status", "--short"]
 * @example plainWords("echo $HOME") // undefined
 */
export function plainWords(text: string): string[] | undefined {
  if (!PLAIN.test(text)) return undefined;
  const words = text.split(/[ \t]+/).filter((w) => w !== "");
  if (words.length === 0 || SYNTAX_LEAD.has(words[0]!)) return undefined;
  return words;
}
