/**
 * @module policy/shell/text-scan
 * Two scans over raw shell text for where the grammar cannot help: the commands substituted in a heredoc
 * body bash expands, and a naive split of text that did not parse, so deny rules still have words to match.
 */
import { braceExpand } from "./expansion/brace.js";

/**
 * The text of every `$(...)` and backquoted command in `text`, honouring backslash escapes.
 * @example substitutionsIn("a $(rm x) `id`") // ["rm x", "id"]
 */
export function substitutionsIn(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
    } else if (ch === "$" && text[i + 1] === "(") {
      let level = 1;
      let j = i + 2;
      for (; j < text.length && level > 0; j++) {
        if (text[j] === "\\") j++;
        else if (text[j] === "(") level++;
        else if (text[j] === ")") level--;
      }
      found.push(text.slice(i + 2, level === 0 ? j - 1 : j));
      i = j - 1;
    } else if (ch === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== "`") j += text[j] === "\\" ? 2 : 1;
      found.push(text.slice(i + 1, j));
      i = j;
    }
  }
  return found;
}

/**
 * Splits text that did not parse at every operator-looking character into word lists (braces expanded,
 * quotes dropped): not what bash would run, only something for deny rules to match.
 * @example naiveCommands("ls; rm -rf 'x'") // [["ls"], ["rm", "-rf", "x"]]
 * @example naiveCommands("{rm,-rf,x}") // [["rm", "-rf", "x"]]
 */
export function naiveCommands(text: string): string[][] {
  const out: string[][] = [];
  for (const part of text.split(/[;&|\n\r()`<>]|\$\(/)) {
    const words = part
      .split(/\s+/)
      .flatMap(braceWords)
      .map((w) => w.replace(/['"\\{}]/g, ""))
      .filter(Boolean);
    if (words.length > 0) out.push(words);
  }
  return out;
}

/** A word's brace expansion, or the word itself when it has none (or too many). */
function braceWords(word: string): string[] {
  if (!word.includes("{")) return [word];
  try {
    return braceExpand(word, 256);
  } catch {
    return [word];
  }
}
