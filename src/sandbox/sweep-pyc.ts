/**
 * @module sandbox/sweep-pyc
 * Python on the host runs `__pycache__/<module>.<tag>.pyc` instead of the source when the file's header names
 * the source's time and size — which a command can copy from an unchanged, reviewed source (the red team's F17:
 * `git status` clean, `import app` runs other code). A compiled file is a cache, always safe to lose: every
 * `.pyc` a command wrote or moved into the project's own `__pycache__` folders is removed after it, and Python
 * compiles it again from the source at the next import. "Wrote or moved" is told by the change time, which no
 * command can set back: a `.pyc` whose inode changed since the survey, or any `.pyc` in a `__pycache__` folder
 * that was itself made or renamed since. `__pycache__` folders inside virtual environments and other skipped
 * folders are left alone: the source there is as writable as the cache and no more reviewed.
 */
import { closeSync, lstatSync, unlinkSync } from "node:fs";
import { bytesOf, inside, openFolder, textOf } from "./descriptors.js";
import { listFolderReopened, reopenFolder } from "./reopen.js";

/** How much earlier than the survey a change still counts (the kernel's file times run on a coarse clock). */
const SLACK_MS = 1000;

/**
 * Removes the `.pyc` files changed since `since` (ms) from the `__pycache__` folders (raw paths). Returns the
 * count removed; what it could not remove or look at is added to `incomplete`.
 */
export function removeNewBytecode(folders: readonly string[], since: number, incomplete: string[]): number {
  let removed = 0;
  for (const folder of folders) {
    let entries: ReturnType<typeof listFolderReopened>;
    let folderChanged: boolean;
    try {
      const stat = lstatSync(bytesOf(folder), { throwIfNoEntry: false });
      if (!stat?.isDirectory()) continue;
      folderChanged = stat.ctimeMs >= since - SLACK_MS;
      entries = listFolderReopened(folder);
    } catch (error) {
      incomplete.push(
        `${textOf(folder)} could not be looked through for compiled Python files: ${(error as Error).message}`,
      );
      continue;
    }
    const stale = entries.filter(({ name, kind }) => {
      if (!name.endsWith(".pyc") || kind === "dir") return false;
      if (folderChanged || kind !== "file") return true;
      const stat = lstatSync(bytesOf(`${folder}/${name}`), { throwIfNoEntry: false });
      return stat !== undefined && stat.ctimeMs >= since - SLACK_MS;
    });
    if (stale.length === 0) continue;
    const fd = openFolder(folder);
    if (fd === undefined) {
      incomplete.push(`${textOf(folder)} changed while compiled Python files were removed from it`);
      continue;
    }
    try {
      for (const { name } of stale) {
        try {
          try {
            unlinkSync(inside(fd, name));
          } catch (error) {
            // A folder the command made read-only: the owner's permissions given back, then once more.
            if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(folder)) throw error;
            unlinkSync(inside(fd, name));
          }
          removed++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT")
            incomplete.push(`could not remove ${textOf(`${folder}/${name}`)}: ${(error as Error).message}`);
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return removed;
}
