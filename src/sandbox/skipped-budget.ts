/**
 * @module sandbox/skipped-budget
 * The names-only walk of skipped folders (scan-skipped.ts) stops at its budget so that a survey stays bounded
 * in time. What it did not read must neither stay unjudged nor turn into a switch that refuses every later
 * command (red team 2026-11-27f, H3: one command made 200,001 folders in `node_modules/.cache/x`, and every
 * later command was refused — G1's class again). So:
 *
 * - before a command, what the walk did not read is mounted read-only (its folders, or their parents when
 *   there are many, never above the skipped folder that holds them): nothing can be planted or changed there,
 *   and a repository there keeps its hooks and config as they are. Your own huge `node_modules` keeps working
 *   for reading; writing there needs `[sandbox] unchecked` or a smaller tree;
 * - after a command, a folder tree the command made (born since the survey) that holds the folders past the
 *   budget is moved to the quarantine — it holds nothing of yours that was not moved into it by the command —
 *   and the walk is done again. What cannot be put down to a new tree leaves the check incomplete, as before.
 */
import { lstatSync } from "node:fs";
import { dirname } from "node:path";
import { bytesOf } from "./descriptors.js";
import { SKIPPED } from "./scan.js";

/** At most this many read-only folders cover what the walk did not read (their parents when more). */
const MAX_UNWALKED_COVERS = 64;

/**
 * The folders to mount read-only for what the walk of `root`'s skipped folders did not read (`left`, raw):
 * coarsened to their parents while there are more than {@link MAX_UNWALKED_COVERS}, never to a folder that is
 * not itself inside a skipped folder. Undefined when that cannot be done (the command is then refused).
 */
export function unwalkedCovers(root: string, left: readonly string[]): string[] | undefined {
  let set = [...new Set(left)];
  while (set.length > MAX_UNWALKED_COVERS) {
    const deepest = Math.max(...set.map((p) => p.split("/").length));
    set = [...new Set(set.map((p) => (p.split("/").length === deepest ? dirname(p) : p)))];
    set = set.filter((p) => !set.some((q) => q !== p && p.startsWith(`${q}/`)));
  }
  return set.every((path) => insideSkipped(root, path)) ? set : undefined;
}

/** Whether raw `path` lies inside (not at) a skipped folder below `root`. */
function insideSkipped(root: string, path: string): boolean {
  if (!path.startsWith(`${root}/`)) return false;
  const parts = path.slice(root.length + 1).split("/");
  return parts.slice(0, -1).some((name) => SKIPPED.has(name));
}

/**
 * The outermost folders below `root` born since `since` (ms) at or above the folders the walk did not read
 * (`left`, raw): the trees a command made past the budget (one folder holding them all, or thousands made side
 * by side in your own `node_modules`). Unread folders with no new folder at or above them are not counted (the
 * person's, or not known to be new: a file system that keeps no birth times). One `lstat` per folder.
 */
export function newTreesHolding(root: string, left: readonly string[], since: number): string[] {
  const born = new Map<string, boolean>();
  const isNew = (path: string) => {
    let known = born.get(path);
    if (known === undefined) {
      known = bornSince(path, since);
      born.set(path, known);
    }
    return known;
  };
  const trees = new Set<string>();
  for (const path of left) {
    let outermost: string | undefined;
    for (let at = path; at.startsWith(`${root}/`) && isNew(at); at = dirname(at)) outermost = at;
    if (outermost !== undefined) trees.add(outermost);
  }
  return [...trees];
}

/** Whether the folder at raw `path` was made since `since` (ms; a second of slack for coarse clocks). */
function bornSince(path: string, since: number): boolean {
  try {
    const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
    // No birth time kept (0): not known to be new.
    if (!stat?.isDirectory()) return false;
    return stat.birthtimeMs > 0 && stat.birthtimeMs >= since - 1000;
  } catch {
    return false;
  }
}
