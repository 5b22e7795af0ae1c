/**
 * @module policy/shell/expansion/glob
 * Pathname expansion of one word against the file system, as a non-interactive bash does by default: no
 * `nullglob` (a pattern that matches nothing stays as written), dot files only for a pattern starting with
 * `.` (never `.` or `..`), no `globstar` (`**` is `*`), results sorted by code point (`LC_ALL=C.UTF-8`).
 * Every folder read must lie inside the workspace roots; a pattern with `..`, with `//`, reaching outside
 * the roots or matching a name that is not UTF-8 is not reproduced (the caller asks instead). Compared with
 * bash itself in `glob.test.ts`.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { NotReproduced } from "./brace.js";
import { type ComponentPattern, compileComponent, componentHasGlob, matchComponent } from "./glob-match.js";
import { type LexedWord, type WordChar, wordValue } from "./lex.js";

/** Where a word's patterns are expanded, and how much reading they may cost. */
export interface GlobContext {
  /** The folder the command runs in (absolute). */
  readonly cwd: string;
  /** The workspace roots (canonical): no folder outside them is read. */
  readonly roots: readonly string[];
  /** Folder entries left to read, for the whole command; shared and decremented. */
  readonly budget: { entries: number };
  /**
   * Paths no pattern matches although they are on disk: the empty folders toolgate's sandbox makes as mount
   * points for missing protected names (they linger a few seconds after a command). Absolute.
   */
  readonly hidden?: (path: string) => boolean;
}

/** Whether a word is subject to pathname expansion (an unquoted `*`, `?` or `[…]`). */
export function hasGlob(word: LexedWord): boolean {
  return splitComponents(word.chars).some(componentHasGlob);
}

function splitComponents(chars: readonly WordChar[]): WordChar[][] {
  const out: WordChar[][] = [[]];
  for (const ch of chars) {
    if (ch.c === "/") out.push([]);
    else out.at(-1)!.push(ch);
  }
  return out;
}

/** Extended patterns (`@(…)`, `!(…)`): bash without `extglob` reads them as a syntax error. */
function hasExtglob(chars: readonly WordChar[]): boolean {
  return chars.some((ch, i) => !ch.quoted && "?*+@!".includes(ch.c) && chars[i + 1]?.c === "(");
}

const textOf = (chars: readonly WordChar[]) => chars.map((ch) => ch.c).join("");

/** A path matched so far: as it will be written in the word, and where it is. */
interface Partial {
  readonly text: string;
  readonly path: string;
}

/**
 * The words a pattern word becomes: the matching paths, sorted, or the word itself when nothing matches.
 * @throws NotReproduced when the expansion cannot be reproduced exactly or must not be read.
 * @example expandGlob(lexWord("*.md")!, { cwd: "/ws", roots: ["/ws"], budget: { entries: 1e4 } }) // ["README.md"]
 */
export function expandGlob(word: LexedWord, context: GlobContext): string[] {
  if (hasExtglob(word.chars)) throw new NotReproduced("an extended glob pattern (extglob is off in bash -c)");
  const components = splitComponents(word.chars);
  const absolute = components.length > 1 && components[0]!.length === 0;
  const trailingSlash = components.length > 1 && components.at(-1)!.length === 0;
  const parts = components.slice(absolute ? 1 : 0, trailingSlash ? -1 : undefined);
  if (parts.some((part) => part.length === 0)) throw new NotReproduced("a glob pattern holds `//`");
  if (parts.some((part) => textOf(part) === ".."))
    throw new NotReproduced("a glob pattern goes up with `..`");
  let found: Partial[] = [{ text: absolute ? "/" : "", path: absolute ? sep : context.cwd }];
  const reader = new FolderReader(context);
  parts.forEach((part, k) => {
    const last = k === parts.length - 1;
    const glued = (text: string) => text + (last ? "" : "/");
    if (!componentHasGlob(part)) {
      const literal = textOf(part);
      const next = found.map((p) => ({ text: glued(p.text + literal), path: join(p.path, literal) }));
      // A literal name after a pattern must exist (bash checks it with lstat, inside a folder).
      found = last && k > 0 ? next.filter((p, i) => isFolder(found[i]!.path) && exists(p.path)) : next;
      return;
    }
    const pattern = compileComponent(part);
    found = found.flatMap((p) =>
      reader.matches(p.path, pattern).map((name) => ({
        text: glued(p.text + name),
        // A folder's path and a name from its listing: no normalising needed.
        path: p.path.endsWith(sep) ? p.path + name : p.path + sep + name,
      })),
    );
  });
  if (trailingSlash) found = found.filter((p) => isFolder(p.path)).map((p) => ({ ...p, text: `${p.text}/` }));
  if (found.length === 0) return [wordValue(word)];
  return found.map((p) => p.text).sort(byCodePoint);
}

/** Reads folders for patterns, checking each lies inside the roots and counting entries. */
class FolderReader {
  constructor(private readonly context: GlobContext) {}

  /** The names in `dir` that match; none when `dir` is not a readable folder. */
  matches(dir: string, pattern: ComponentPattern): string[] {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return [];
    }
    this.inside(dir);
    this.context.budget.entries -= entries.length;
    if (this.context.budget.entries < 0) throw new NotReproduced("its glob patterns read too many files");
    const out: string[] = [];
    for (const name of entries) {
      if (!matchComponent(pattern, name)) continue;
      if (this.context.hidden?.(dir.endsWith(sep) ? dir + name : dir + sep + name)) continue;
      // A name that is not UTF-8 reads back with U+FFFD: the analysis would not name the file bash passes.
      if (name.includes("\uFFFD")) throw new NotReproduced("a matching file name is not UTF-8");
      out.push(name);
    }
    return out;
  }

  /** Refuses a folder whose real path is outside every root. */
  private inside(dir: string): void {
    const real = realpathSync.native(dir);
    const within = this.context.roots.some(
      (root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep),
    );
    if (!within) throw new NotReproduced("a glob pattern reads a folder outside the workspace");
  }
}

/** Through links, as bash's `glob_testdir`; a path through a file (ENOTDIR) is no folder. */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** The name itself, as bash's `lstat` test: a broken link exists. */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Code point order, as `C.UTF-8` collates (the order of the UTF-8 bytes). JavaScript compares UTF-16 units,
 * which differs only where a surrogate (a code point above U+FFFF) meets a unit from U+E000 to U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
