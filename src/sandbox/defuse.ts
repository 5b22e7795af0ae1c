/**
 * @module sandbox/defuse
 * What the check after a command moves to the quarantine must not run when the person looks at it: the
 * check's own report sends them there, and "looking at a repository" is `git status` or `git log` (or a
 * git-aware prompt on `cd`, an editor's git integration), which read the moved repository's config and run its
 * hooks. So a moved `.git` or `.hg` is stored under another name (git and Mercurial no longer find it from the
 * folder above), and a moved folder that is itself a git folder loses its `HEAD` (git then does not take it for
 * a repository even from inside). Nothing is deleted: the person restores a name deliberately.
 */
import { closeSync, renameSync } from "node:fs";
import { inside, openInside } from "./descriptors.js";
import { reopenFolder } from "./reopen.js";

/** The suffix a defused name gets. */
export const DEFUSED_SUFFIX = ".quarantined";

/** Names that make their folder a repository for a version control program on the host. */
const REPOSITORY_NAMES = new Set([".git", ".hg"]);

/** The name a moved entry gets in the quarantine: a repository's folder or pointer file is renamed. */
export function quarantinedName(name: string): string {
  return REPOSITORY_NAMES.has(name) ? `${name}${DEFUSED_SUFFIX}` : name;
}

/**
 * Defuses what was just moved to `name` inside the opened folder `folderFd` (raw `path` names the same entry):
 * a folder holding a git `HEAD` (a git folder, moved whole or under its new name) gets it renamed; a folder
 * the command made read-only gets its owner's permissions back first.
 * @throws when a git folder's HEAD cannot be renamed (the move is then not complete: git run inside it would
 * still take it for a repository)
 */
export function defuseMoved(folderFd: number, name: string, path: string): void {
  let moved: ReturnType<typeof openInside>;
  try {
    moved = openInside(folderFd, name);
  } catch {
    return; // A link (not followed) or something that cannot be opened: nothing inside to defuse.
  }
  if (!moved) return;
  try {
    if (!moved.stat.isDirectory()) return;
    const head = openInside(moved.fd, "HEAD");
    if (!head) return;
    closeQuietly(head.fd);
    const rename = () => renameSync(inside(moved.fd, "HEAD"), inside(moved.fd, `HEAD${DEFUSED_SUFFIX}`));
    try {
      rename();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(path)) throw error;
      rename();
    }
  } finally {
    closeQuietly(moved.fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
