/**
 * @module policy/shell/places
 * Where each command of a command line runs, as far as the text tells: `cd DIR && git status` runs git in
 * `DIR`, `(cd DIR); ls *` does not. Folders are kept relative to where the line starts (`.`), so the same
 * analysis serves the glob expansion (which reads the folder) and the git config check (which reads its
 * repository). A change the analysis cannot follow (`cd -`, `cd` alone, `popd`) leaves the folder unknown.
 */
import { posix } from "node:path";

/** Where one command runs. */
export interface CommandPlace {
  /** Its folder relative to where the command line starts (`.`), absolute after `cd /x`; null: not known. */
  readonly dir: string | null;
  /** Variables assigned just before it (`GIT_DIR=x git status`), with plain values. */
  readonly vars?: Readonly<Record<string, string>>;
}

export const START_PLACE: CommandPlace = Object.freeze({ dir: "." });

/** `cd`'s and `pushd`'s options (`-L`, `-P`, `-e`, `-@`). */
const CD_OPTION = /^-[LPe@]+$/;

/**
 * The folder a command leaves the shell in, or undefined when it does not change folder.
 * @example folderAfter(["cd", "src"], ".") // "src"
 * @example folderAfter(["cd", "-"], ".") // null
 */
export function folderAfter(words: readonly string[], dir: string | null): string | null | undefined {
  const name = words[0];
  if (name === "popd") return null;
  if (name !== "cd" && name !== "pushd") return undefined;
  let i = 1;
  while (i < words.length && CD_OPTION.test(words[i]!)) i++;
  if (words[i] === "--") i++;
  const operands = words.slice(i);
  // `cd` alone goes home, `cd -` back, `pushd +1` round the stack: places the text does not name.
  if (operands.length !== 1 || operands[0] === "-" || /^[+-]\d+$/.test(operands[0]!) || dir === null)
    return null;
  const target = operands[0]!;
  if (target === "") return dir;
  return target.startsWith("/") ? posix.normalize(target) : posix.normalize(posix.join(dir, target));
}

/** Commands that change how bash expands words (`set -f`, `set +B`, `shopt -s nullglob`). */
export function changesExpansion(words: readonly string[]): boolean {
  return (words[0] === "set" || words[0] === "shopt") && words.length > 1;
}

/** Variables that change how bash expands words. */
export const EXPANSION_VARIABLES: ReadonlySet<string> = new Set([
  "GLOBIGNORE",
  "BASHOPTS",
  "SHELLOPTS",
  "IFS",
]);
