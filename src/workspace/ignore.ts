/**
 * @module workspace/ignore
 * Git ignore rules for discovery (glob, grep, ls, read_many_files): `.gitignore` at every level, the
 * repository's `.git/info/exclude`, and `.git/` itself always. Deeper files win, like git. Rule files are read
 * lazily and synchronously, so the checks can run inside a directory walker's callbacks.
 */

import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type GitignoreRules, gitignoreRules, readPlainFileSync } from "../utils/index.js";
import { isInsideOrEqual, relativeInside } from "./paths.js";

interface Level {
  dir: string;
  rules: GitignoreRules;
  /** Every rule is a folder-only exclusion (`dist/`): it can never ignore a file whose folders were kept. */
  foldersOnly: boolean;
}

/** True when every pattern in the texts ends with `/` and none negates. */
function onlyFolderRules(texts: string[]): boolean {
  for (const text of texts) {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      if (line.startsWith("!") || !line.endsWith("/")) return false;
    }
  }
  return true;
}

/** Finds the top of the git work tree containing `dir` (a folder holding `.git`), if any. */
export function findGitTop(dir: string): string | undefined {
  let current = dir;
  for (;;) {
    try {
      statSync(join(current, ".git"));
      return current;
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** Rule files larger than this are not read (no real ignore file comes near it). */
const MAX_RULE_FILE_BYTES = 4 * 1024 * 1024;

/**
 * A rule file's text, or undefined when it is missing or not a plain file. Read synchronously, so it must
 * never block: a FIFO would freeze the whole process and `/dev/zero` would never end. Like git, an in-tree
 * `.gitignore` that is a symlink is not followed (`follow` false).
 */
function readLines(file: string, follow: boolean): string | undefined {
  try {
    return readPlainFileSync(file, { follow, maxBytes: MAX_RULE_FILE_BYTES }).toString("utf8");
  } catch {
    return undefined;
  }
}

/**
 * The ignore rules that apply below one root. Paths passed in must be canonical and inside the root.
 * @example const rules = new IgnoreRules("/ws"); rules.isIgnored("/ws/node_modules", true)
 */
export class IgnoreRules {
  /** The folder whose rules apply first: the git work tree's top when the root is inside one, else the root. */
  readonly top: string;
  readonly gitTop: string | undefined;
  private readonly levels = new Map<string, Level | null>();
  private readonly chains = new Map<string, Level[]>();

  constructor(readonly root: string) {
    this.gitTop = findGitTop(root);
    this.top = this.gitTop ?? root;
  }

  /** The rules of one folder (its `.gitignore`, plus `.git/info/exclude` at the repository top). */
  private levelOf(dir: string): Level | null {
    let level = this.levels.get(dir);
    if (level !== undefined) return level;
    const texts: string[] = [];
    if (dir === this.gitTop) {
      const exclude = readLines(join(dir, ".git", "info", "exclude"), true);
      if (exclude) texts.push(exclude);
    }
    const own = readLines(join(dir, ".gitignore"), false);
    if (own) texts.push(own);
    if (texts.length === 0) level = null;
    else {
      // add() splits a string into lines, but takes each array element as one pattern: add texts one by one.
      const rules = gitignoreRules();
      for (const text of texts) rules.add(text);
      level = { dir, rules, foldersOnly: onlyFolderRules(texts) };
    }
    this.levels.set(dir, level);
    return level;
  }

  /** Folders with rules from `dir` up to the top, deepest first. */
  private chainOf(dir: string): Level[] {
    const cached = this.chains.get(dir);
    if (cached) return cached;
    let chain: Level[];
    if (dir === this.top || !isInsideOrEqual(this.top, dir)) {
      const own = this.levelOf(dir);
      chain = own ? [own] : [];
    } else {
      const own = this.levelOf(dir);
      const above = this.chainOf(dirname(dir));
      chain = own ? [own, ...above] : above;
    }
    this.chains.set(dir, chain);
    return chain;
  }

  /**
   * True when `path` (canonical, absolute) is ignored: it is named `.git`, or the deepest rule file that has
   * an opinion ignores it. `foldersChecked`: the caller (a walker) has already checked every folder between
   * the root and `path`, so folder-only rule files can be skipped. Use {@link isIgnoredDeep} for a lone path.
   */
  isIgnored(path: string, isDir: boolean, foldersChecked = false): boolean {
    if (basename(path) === ".git") return true;
    for (const level of this.chainOf(dirname(path))) {
      // A walker that pruned ignored folders already knows folder-only rules cannot touch this file.
      if (foldersChecked && !isDir && level.foldersOnly) continue;
      const rel = relativeInside(level.dir, path);
      if (rel === "") continue;
      const result = level.rules.test(isDir ? `${rel}/` : rel);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  /** Like {@link isIgnored}, but also true when any folder between the root and `path` is ignored. */
  isIgnoredDeep(path: string, isDir: boolean): boolean {
    if (!isInsideOrEqual(this.root, path) || path === this.root) return false;
    let current = dirname(path);
    while (current !== this.root && isInsideOrEqual(this.root, current)) {
      if (this.isIgnored(current, true)) return true;
      current = dirname(current);
    }
    return this.isIgnored(path, isDir);
  }
}
