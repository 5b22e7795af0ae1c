/**
 * @module sandbox/git-shape
 * Whether a folder's entries make it a git folder to git itself (a bare repository, a `.bare` folder, a
 * submodule's git folder, or a folder a command shaped like one), whatever the folder's name.
 */
import type { FolderEntry } from "./scan.js";

/** The entries that make a folder a git folder. */
const GIT_SHAPE = ["HEAD", "objects", "refs"];

export function isGitShaped(entries: readonly FolderEntry[]): boolean {
  let seen = 0;
  for (const { name, kind } of entries) {
    // As git decides (setup.c is_git_directory): a HEAD it can read (a file or a link), and `objects` and
    // `refs` it can search — a link to a folder, or even an executable file, passes `access(X_OK)`.
    if (name === "HEAD" ? kind === "file" || kind === "link" : GIT_SHAPE.includes(name)) seen++;
  }
  return seen === GIT_SHAPE.length;
}
