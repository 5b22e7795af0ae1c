/**
 * @module sandbox/sweep-links
 * Links a command leaves for programs on the host to write or read through. The person's own git, npm or
 * editor runs outside the sandbox and follows a link the command planted: `.git/logs/HEAD` linked to
 * `~/.bashrc` gets a reflog line (the commit subject) appended on the next commit; `package-lock.json` linked
 * to a file outside is overwritten by the next `npm install`. A hard link under a secret's name to an innocent
 * name lets the command read, next time, the secret the person later writes in place.
 * What a command made (changed since it started) and is one of these is named here for the check after it.
 */
import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { bytesOf, textOf } from "./descriptors.js";
import { type FolderEntry, listFolder } from "./scan.js";

/** How many folders of one git folder are looked through for links; past it the check says so. */
const MAX_GIT_FOLDERS = 5_000;

/**
 * Why a link is no link a command may leave: absolute, or leading outside every root (by its text or by
 * where it really ends), unless what it reaches is nothing the person could write (a system file).
 */
export function outsideLinkWhy(path: string, roots: readonly string[], since: number): string | undefined {
  const stat = changedSince(path, since);
  if (!stat?.isSymbolicLink()) return undefined;
  let target: string;
  try {
    target = readlinkSync(bytesOf(path), { encoding: "buffer" }).toString("latin1");
  } catch {
    return undefined;
  }
  const why = "programs on the host (git, npm, an editor) would write or read through it";
  const within = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}/`));
  let real: string | undefined;
  try {
    real = realpathSync(bytesOf(path), { encoding: "buffer" }).toString("latin1");
  } catch {
    // Dangling or a loop: judged by its text alone.
  }
  const outside =
    isAbsolute(target) || !within(resolve(dirname(path), target)) || (real !== undefined && !within(real));
  // A virtual environment's `python -> /usr/bin/python3`: nothing the person may change is reached through it.
  if (!outside || (real !== undefined && !within(real) && !writable(real) && !writable(dirname(real))))
    return undefined;
  return isAbsolute(target)
    ? `a link with an absolute target: ${why}`
    : `a link leading outside the workspace: ${why}`;
}

function writable(path: string): boolean {
  try {
    accessSync(bytesOf(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why a secret-named file must not stay: a regular file with more than one name (hard links). */
export function sharedSecretWhy(path: string, since: number): string | undefined {
  const stat = changedSince(path, since);
  if (!stat?.isFile() || stat.nlink < 2) return undefined;
  return (
    `a secret-named file with ${stat.nlink} hard links: a secret written there later would be readable ` +
    "through its other name"
  );
}

/**
 * The links (raw absolute paths) made or changed since `since` anywhere inside git folder `gitDir`: git makes
 * none there, and git on the host writes through them (reflogs, COMMIT_EDITMSG, FETCH_HEAD). The object
 * store is not walked: git writes an object by making a new file and renaming it into place, never through
 * an existing name. `problems` gets a line when the folder is too large to look through whole.
 */
export function gitFolderLinks(gitDir: string, since: number, problems: string[]): string[] {
  const links: string[] = [];
  const queue = [gitDir];
  for (let done = 0; queue.length > 0; done++) {
    const folder = queue.shift()!;
    if (done >= MAX_GIT_FOLDERS) {
      problems.push(
        `${textOf(folder)} and ${queue.length} more folders of a git folder were not looked through for links`,
      );
      break;
    }
    let entries: readonly FolderEntry[];
    try {
      entries = listFolder(folder);
    } catch {
      continue;
    }
    const isGitShaped = entries.some((e) => e.name === "HEAD");
    for (const { name, kind } of entries) {
      const path = `${folder}/${name}`;
      if (kind === "link") {
        if (changedSince(path, since)) links.push(path);
      } else if (kind === "dir" && !(isGitShaped && name === "objects")) queue.push(path);
    }
  }
  return links;
}

/** The path's own stat when it changed (ctime, which no command can set back) since `since`, in ms. */
function changedSince(path: string, since: number) {
  try {
    const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
    return stat && stat.ctimeMs >= since ? stat : undefined;
  } catch {
    return undefined;
  }
}
