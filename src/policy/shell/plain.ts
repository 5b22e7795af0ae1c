/**
 * @module policy/shell/plain
 * The fast path of command analysis: a command that is only plain words separated by blanks (`git status
 * --short`, `ls -la src/`) parses to exactly one simple command whose words are its text split on blanks, so
 * the grammar need not run. Anything with quoting, expansion, redirection, operators, an assignment or a
 * leading keyword takes the full parse. `plain.test.ts` checks both paths agree on generated commands.
 */

// Word characters bash treats literally: no quotes, `$`, globs, `~`, `#`, `=`, braces, operators. Arguments
// may contain `=` (`--color=never`); the first word may not (`A=b cmd` is an assignment), nor `@` or `%`
// and it starts with a letter, digit, `.` or `/` (the grammar reads `x@y` as an error and `- a=b` as nothing).
const PLAIN = /^[\w./][\w./:+,-]*(?:[ \t]+[\w./:@%+,=-]+)*[ \t]*$/;

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
