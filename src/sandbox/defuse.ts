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
import { bytesOf, inside, openInside, textOf } from "./descriptors.js";
import { isGitShaped } from "./git-shape.js";
import { reopenFolder } from "./reopen.js";
import { type FolderEntry, listFolder } from "./scan.js";

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
    renameHead(moved.fd, path);
  } finally {
    closeQuietly(moved.fd);
  }
  defuseNested(path);
}

/** Renames the HEAD of the opened folder `fd` (raw `path`), if it holds one. */
function renameHead(fd: number, path: string): void {
  const head = openInside(fd, "HEAD");
  if (!head) return;
  closeQuietly(head.fd);
  const rename = () => renameSync(inside(fd, "HEAD"), inside(fd, `HEAD${DEFUSED_SUFFIX}`));
  try {
    rename();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(path)) throw error;
    rename();
  }
}

/** At most this many folders inside a moved one are looked through for repositories. */
const MAX_NESTED_FOLDERS = 100_000;

/**
 * Defuses every repository INSIDE the folder moved to raw `path`, at any depth: a `.git` or `.hg` (folder or
 * pointer file) gets the suffix and a folder shaped like a git folder loses its HEAD — a repository made inside
 * a moved protected folder (`git init pkg/.devcontainer`) would otherwise still run its config when the person
 * looks there. The quarantine is read-only to every sandboxed command, so nothing changes it meanwhile.
 * @throws when a folder inside cannot be read or a name cannot be changed, or past the folder budget (the
 * move is then not complete)
 */
function defuseNested(path: string): void {
  let queue = [path];
  let seen = 0;
  while (queue.length > 0) {
    const next: string[] = [];
    for (const folder of queue) {
      if (++seen > MAX_NESTED_FOLDERS)
        throw new Error(
          `${textOf(path)} holds more than ${MAX_NESTED_FOLDERS} folders: not all looked through`,
        );
      const entries = entriesOf(folder);
      if (entries === undefined) continue;
      if (folder !== path && isGitShaped(entries) && entries.some((e) => e.name === "HEAD"))
        renameIn(folder, "HEAD");
      for (const { name, kind } of entries) {
        let child = `${folder}/${name}`;
        if (REPOSITORY_NAMES.has(name) && (kind === "dir" || kind === "file")) {
          renameIn(folder, name);
          child = `${child}${DEFUSED_SUFFIX}`;
        }
        if (kind === "dir") next.push(child);
      }
    }
    queue = next;
  }
}

/** Gives `name` in the raw `folder` the defused suffix (the owner's permissions given back if the command took them). */
function renameIn(folder: string, name: string): void {
  const rename = () =>
    renameSync(bytesOf(`${folder}/${name}`), bytesOf(`${folder}/${name}${DEFUSED_SUFFIX}`));
  try {
    rename();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(folder)) throw error;
    rename();
  }
}

/** A folder's entries, its owner's permissions given back first if the command took them; none if it is gone. */
function entriesOf(folder: string): readonly FolderEntry[] | undefined {
  try {
    return listFolder(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EACCES" && reopenFolder(folder)) return listFolder(folder);
    throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
