/**
 * @module sandbox/placeholders
 * bwrap needs a mount point to keep a missing protected path from being created, and makes one on the host (an
 * empty file, and any missing parent folders). This module counts who relies on each such placeholder in this
 * process and removes it — only while still empty — when the last sandbox using it ends, so a workspace is left
 * as it was found. A second sandbox started meanwhile sees the placeholder as its own, not as a real file.
 */
import { lstatSync, mkdirSync, rmdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { SandboxPlan } from "./bwrap-args.js";

const holders = new Map<string, number>();

/** True when `path` is a placeholder a running sandbox of this process made. */
export function isHeldPlaceholder(path: string): boolean {
  return holders.has(path);
}

/**
 * Registers the placeholders `plan` will make (its missing read-only paths and their missing parents inside the
 * roots) and returns the function that releases them. Call before starting bwrap; release once it has exited.
 */
export function holdPlaceholders(plan: SandboxPlan): () => void {
  const paths: string[] = [];
  for (const entry of plan.readOnly) {
    if (entry.type !== "missing") continue;
    const root = plan.roots.find((r) => entry.path.startsWith(`${r}/`));
    if (!root) continue;
    // The path, then each parent up to (not including) the root that is missing or already a placeholder.
    for (let path = entry.path; path !== root && path.length > root.length; path = dirname(path)) {
      if (path !== entry.path && !holders.has(path) && exists(path)) break;
      paths.push(path);
    }
  }
  for (const path of paths) holders.set(path, (holders.get(path) ?? 0) + 1);
  // Missing parent folders are made now, not by bwrap: each is bound onto itself (so it cannot be renamed away,
  // see bwrap-args.ts), and bwrap looks for a bind's source before it makes any mount point.
  const missingFiles = new Set(plan.readOnly.map((entry) => entry.path));
  for (const path of paths) if (!missingFiles.has(path)) mkdirSync(path, { recursive: true });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Deepest first, so a folder is empty by the time it is looked at.
    for (const path of [...paths].sort((a, b) => b.length - a.length)) {
      const left = (holders.get(path) ?? 1) - 1;
      if (left > 0) {
        holders.set(path, left);
        continue;
      }
      holders.delete(path);
      removeIfEmpty(path);
    }
  };
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** Removes an empty placeholder file or folder; anything with content was put there by someone else: kept. */
function removeIfEmpty(path: string): void {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) rmdirSync(path);
    else if (stat?.isFile() && stat.size === 0) unlinkSync(path);
  } catch {
    // ENOTEMPTY, or already gone: nothing of ours to remove.
  }
}
