/**
 * @module sandbox/reopen
 * The check after a command must see and move everything the command left. A command can take read, search
 * or write permission away from its own folders (`chmod 111`, `chmod 555`, even on the root), which would hide
 * what is inside from the check's listing — but not from the person's tools: a path lookup needs only search
 * permission. toolgate runs as the person who owns those folders, so before looking or moving it gives the
 * owner's permissions back to a folder the person owns (nothing is lost: the command could set any mode).
 */
import { chmodSync, closeSync } from "node:fs";
import { dirname } from "node:path";
import { openChecked } from "./descriptors.js";
import { type FolderEntry, listFolder } from "./scan.js";

/**
 * Gives the owner read, write and search permission on the folder at raw `path` when the person running
 * toolgate owns it and lacks one of them (reached without following a link). True when the mode changed.
 */
export function reopenFolder(path: string): boolean {
  let opened: ReturnType<typeof openChecked>;
  try {
    opened = openChecked(path);
  } catch {
    return false; // Past PATH_MAX, or otherwise not reachable by its path: nothing to give back there.
  }
  if (opened === undefined || opened === "moved") return false;
  try {
    const { stat } = opened;
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o700) === 0o700) return false;
    // Through the descriptor (opened without following links): the folder itself, wherever it is now.
    chmodSync(`/proc/self/fd/${opened.fd}`, (stat.mode & 0o7777) | 0o700);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(opened.fd);
  }
}

/** Gives the owner's permissions back on every folder from `root` (raw) down to the folder holding `path`. */
export function reopenWay(root: string, path: string): boolean {
  const folders: string[] = [];
  for (let at = dirname(path); at.length >= root.length && at.startsWith(root); at = dirname(at)) {
    folders.unshift(at);
    if (at === root) break;
  }
  let changed = false;
  for (const folder of folders) changed = reopenFolder(folder) || changed;
  return changed;
}

/** {@link listFolder}, and once more after giving the owner's permissions back when it was refused. */
export function listFolderReopened(path: string): readonly FolderEntry[] {
  try {
    return listFolder(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(path)) throw error;
    return listFolder(path);
  }
}
