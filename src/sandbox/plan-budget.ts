/**
 * @module sandbox/plan-budget
 * Keeps the survey's covers within what bwrap and the kernel can mount, whatever a command left in the
 * workspace for the next one: a cover whose path is too long for the kernel is replaced by the deepest folder
 * above it that fits, and past {@link MAX_COVERS} the folders holding the most covers are hidden whole. Both
 * hide more, never less (fail closed); a budget that only hiding a root would meet refuses the command with
 * the reason, rather than handing bwrap a plan it cannot carry out.
 */
import { dirname } from "node:path";
import { isInsideOrEqual } from "../workspace/index.js";
import { textOf } from "./descriptors.js";
import type { Layout } from "./survey.js";

/** bwrap mounts below `/newroot`; the path, that prefix and the NUL must fit the kernel's PATH_MAX (4,096). */
export const MAX_MOUNT_PATH = 4000;

/**
 * Covers beyond which the folders holding the most are hidden whole: bwrap reads at most 9,000 arguments
 * (each cover takes three, its pins more), and a command must not be able to push the next ones past that.
 */
export const MAX_COVERS = 512;

/** Why a cover cannot be made smaller without hiding a root (the caller throws it as a setup error). */
export class PlanBudgetError extends Error {}

/** Rewrites `layout.covers` in place to fit both budgets; notes say what was hidden whole, and why. */
export function fitPlan(layout: Layout, roots: readonly string[]): void {
  const hideWhole = (folder: string, why: string) => {
    if (roots.some((root) => isInsideOrEqual(folder, root))) {
      throw new PlanBudgetError(
        `${why}, and hiding them would hide the workspace ${textOf(folder)}; remove or move them into a folder`,
      );
    }
    for (const path of [...layout.covers.keys()])
      if (isInsideOrEqual(folder, path)) layout.covers.delete(path);
    layout.placeholders = layout.placeholders.filter((path) => !isInsideOrEqual(folder, path));
    for (const path of [...layout.placeholderFiles.keys()])
      if (isInsideOrEqual(folder, path)) layout.placeholderFiles.delete(path);
    layout.covers.set(folder, "empty");
    if (!layout.unsurveyed.includes(folder)) layout.unsurveyed.push(folder);
  };
  for (const path of [...layout.covers.keys()]) {
    if (path.length <= MAX_MOUNT_PATH || !layout.covers.has(path)) continue;
    let folder = dirname(path);
    while (folder.length > MAX_MOUNT_PATH) folder = dirname(folder);
    hideWhole(folder, `${textOf(path).slice(0, 80)}… is too long a path to hide by itself`);
    layout.notes.push(
      `[sandbox: ${textOf(folder)} is hidden whole: it holds paths longer than the sandbox can mount]`,
    );
  }
  while (layout.covers.size > MAX_COVERS) {
    const folder = busiestFolder(layout);
    const count = [...layout.covers.keys()].filter((p) => isInsideOrEqual(folder, p)).length;
    hideWhole(
      folder,
      `${textOf(folder)} holds ${count} files the sandbox hides (at most ${MAX_COVERS} in all)`,
    );
    layout.notes.push(
      `[sandbox: ${textOf(folder)} is hidden whole: it holds ${count} secret-named or protected paths, ` +
        `more than the sandbox hides one by one]`,
    );
  }
}

/** The deepest folder whose covers, hidden at once, make the plan smallest: the parent with the most covers. */
function busiestFolder(layout: Layout): string {
  const counts = new Map<string, number>();
  for (const path of layout.covers.keys()) {
    const parent = dirname(path);
    counts.set(parent, (counts.get(parent) ?? 0) + 1);
  }
  let best = "";
  let most = 0;
  for (const [folder, count] of counts) {
    if (count > most || (count === most && folder.length > best.length)) {
      best = folder;
      most = count;
    }
  }
  // Covers spread one per folder: hide the parents of the deepest, a level at a time.
  if (most <= 1) {
    const deepest = [...counts.keys()].sort((a, b) => b.split("/").length - a.split("/").length)[0]!;
    return dirname(deepest);
  }
  return best;
}
