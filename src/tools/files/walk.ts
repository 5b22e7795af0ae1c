/**
 * @module tools/files/walk
 * The directory walk behind glob, grep's JS backend and read_many_files: fdir over canonical folders,
 * pruning `.git`, hidden entries (unless asked) and git-ignored folders, never following symlinks, so the set
 * of files matches what ripgrep would search.
 */

import { sep } from "node:path";
import type { IgnoreRules } from "../../workspace/index.js";

/** Options of {@link walkFiles}. */
export interface WalkOptions {
  /** The ignore rules of the root the folder is in. */
  rules: IgnoreRules;
  /** Include names starting with `.` (`.git` is always left out). */
  includeHidden: boolean;
  /** Folder levels below `dir` to enter (1 = only `dir`'s own files). Default: unlimited. */
  maxDepth?: number;
  /** Cheap test on the path relative to `dir` (`/`-separated), run before the ignore rules. */
  accept?: (relative: string) => boolean;
  signal?: AbortSignal;
}

/**
 * Lists the files below a canonical folder, unsorted, as absolute paths. Ignored folders are pruned whole,
 * as git does (a file inside an ignored folder cannot be re-included).
 */
export async function walkFiles(dir: string, options: WalkOptions): Promise<string[]> {
  const { rules, includeHidden, accept } = options;
  const prefixLength = dir.endsWith(sep) ? dir.length : dir.length + 1;
  // Loaded on the first walk: at load fdir looks for picomatch with `require` (its own glob support, which
  // this walk does not use), ~4 ms of every start-up.
  const { fdir } = await import("fdir");
  let builder = new fdir({ excludeSymlinks: true, suppressErrors: true })
    .withFullPaths()
    .exclude((name, path) => {
      if (name === ".git") return true;
      if (!includeHidden && name.startsWith(".")) return true;
      return rules.isIgnored(path.endsWith(sep) ? path.slice(0, -1) : path, true);
    })
    .filter((path) => {
      const relative = path.slice(prefixLength);
      const slash = relative.lastIndexOf("/");
      const name = slash === -1 ? relative : relative.slice(slash + 1);
      if (!includeHidden && name.startsWith(".")) return false;
      if (name === ".git") return false;
      if (accept && !accept(relative)) return false;
      return !rules.isIgnored(path, false, true);
    });
  if (options.maxDepth !== undefined) builder = builder.withMaxDepth(Math.max(0, options.maxDepth - 1));
  if (options.signal) builder = builder.withAbortSignal(options.signal);
  return builder.crawl(dir).withPromise();
}

/** Byte-wise comparison for deterministic path order (independent of locale). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
