/**
 * @module sandbox/git-shape
 * Whether a folder's entries make it a git folder to git itself (a bare repository, a `.bare` folder, a
 * submodule's git folder, a linked worktree's git folder, or a folder a command shaped like one), whatever the
 * folder's name.
 */
import type { FolderEntry } from "./scan.js";

/**
 * As git decides (setup.c is_git_directory): a HEAD it can read (a file or a link), and `objects` and `refs` it
 * can search in the folder's COMMON folder — the folder itself, or the one its `commondir` file names (a linked
 * worktree's git folder holds no objects of its own; red team round 5, I3). `objects` and `refs` pass as a link
 * to a folder, or even an executable file (`access(X_OK)`); a `commondir` entry of any kind is taken for one.
 */
export function isGitShaped(entries: readonly FolderEntry[]): boolean {
  let head = false;
  let objects = false;
  let refs = false;
  let commondir = false;
  for (const { name, kind } of entries) {
    if (name === "HEAD") head ||= kind === "file" || kind === "link";
    else if (name === "objects") objects = true;
    else if (name === "refs") refs = true;
    else if (name === "commondir") commondir = true;
  }
  return head && ((objects && refs) || commondir);
}
