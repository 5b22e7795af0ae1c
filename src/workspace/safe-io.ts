/**
 * @module workspace/safe-io
 * File IO on checked paths that stays safe when the file system changes after the check: files are opened
 * without following symlinks and verified through `/proc/self/fd`, folders are created one level at a time
 * inside the root, and writes go through the opened parent folder with write-to-temp + rename.
 */

import type { Stats } from "node:fs";
import { constants as fsc } from "node:fs";
import { chown, type FileHandle, lstat, mkdir, open, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import { hardLinkError, isErrno, WorkspaceError } from "./errors.js";
import { isInsideOrEqual, relativeInside } from "./paths.js";
import type { ResolvedPath } from "./workspace.js";

const O_NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fsc.O_DIRECTORY ?? 0;
// Opening a FIFO for reading blocks until a writer appears (forever, in a thread-pool thread no signal can
// free); non-blocking, the open returns at once and the type check below refuses it. Regular files ignore it.
const O_NONBLOCK = fsc.O_NONBLOCK ?? 0;

/** Where an open descriptor really points (Linux `/proc/self/fd`), or undefined where that is unavailable. */
async function fdTarget(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

function changed(resolved: ResolvedPath, what: string): WorkspaceError {
  return new WorkspaceError(
    "changed",
    `path "${resolved.input}" changed while it was being ${what} (a symlink or folder was swapped in); refused`,
    resolved.input,
    resolved.canonical,
  );
}

/**
 * Opens a checked file for reading: the last component must not be a symlink, it must be a regular file, and
 * the opened descriptor must still be the canonical path (so a folder or link swapped in after the check is
 * caught). The caller closes the handle.
 */
export async function openForRead(resolved: ResolvedPath): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(resolved.canonical, fsc.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) {
      throw new WorkspaceError(
        "not_found",
        `file not found: ${resolved.input}`,
        resolved.input,
        resolved.canonical,
      );
    }
    if (isErrno(error, "ELOOP", "EMLINK")) throw changed(resolved, "read");
    throw error;
  }
  try {
    const target = await fdTarget(handle);
    if (target !== undefined && target !== resolved.canonical) throw changed(resolved, "read");
    const info = await handle.stat();
    if (info.isDirectory()) {
      throw new WorkspaceError(
        "wrong_type",
        `path "${resolved.input}" is a directory, not a file`,
        resolved.input,
      );
    }
    if (!info.isFile()) {
      throw new WorkspaceError(
        "wrong_type",
        `path "${resolved.input}" is not a regular file`,
        resolved.input,
      );
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Creates the missing folders above a checked path, one level at a time, each checked to be a real folder
 * inside the root (never through a symlink created meanwhile).
 */
export async function ensureParentDirs(resolved: ResolvedPath): Promise<void> {
  const parent = dirname(resolved.canonical);
  if (!isInsideOrEqual(resolved.root, parent)) throw changed(resolved, "written");
  const parts = relativeInside(resolved.root, parent).split("/").filter(Boolean);
  let current = resolved.root;
  for (const part of parts) {
    current = join(current, part);
    try {
      await mkdir(current);
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
    }
    const info = await lstat(current);
    if (info.isSymbolicLink()) throw changed(resolved, "written");
    if (!info.isDirectory()) {
      throw new WorkspaceError(
        "wrong_type",
        `cannot create "${resolved.input}": "${relativeInside(resolved.root, current)}" is not a directory`,
        resolved.input,
      );
    }
    if ((await realpath(current)) !== current) throw changed(resolved, "written");
  }
}

/** Options of {@link writeChecked}. */
export interface WriteCheckedOptions {
  /** Replace an existing file (default false: fail with `exists`). */
  overwrite?: boolean;
}

/**
 * Writes a checked path: creates missing parents inside the root, then writes through the opened parent
 * folder — new files exclusively, existing files by write-to-temp + rename keeping their mode (a symlink
 * swapped in at the target is replaced, not followed). Refuses files with more than one hard link.
 * @returns whether the file was created (false: replaced)
 */
export async function writeChecked(
  resolved: ResolvedPath,
  data: string | Uint8Array,
  options: WriteCheckedOptions = {},
): Promise<{ created: boolean }> {
  await ensureParentDirs(resolved);
  const parent = dirname(resolved.canonical);
  let dir: FileHandle;
  try {
    dir = await open(parent, fsc.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if (isErrno(error, "ELOOP", "ENOTDIR", "ENOENT")) throw changed(resolved, "written");
    throw error;
  }
  try {
    const real = await fdTarget(dir);
    if (real !== undefined && real !== parent) throw changed(resolved, "written");
    // Operate through the verified descriptor where the platform allows, so a later swap cannot redirect us.
    const base = real !== undefined ? `/proc/self/fd/${dir.fd}` : parent;
    const target = join(base, basename(resolved.canonical));
    let existing: Stats | undefined;
    try {
      existing = await lstat(target);
    } catch (error) {
      if (!isErrno(error, "ENOENT")) throw error;
    }
    if (existing === undefined) {
      try {
        await writeFileAtomic(target, data, { exclusive: true });
      } catch (error) {
        if (isErrno(error, "EEXIST")) throw exists(resolved);
        throw error;
      }
      return { created: true };
    }
    if (!options.overwrite) throw exists(resolved);
    if (existing.isDirectory()) {
      throw new WorkspaceError("wrong_type", `path "${resolved.input}" is a directory`, resolved.input);
    }
    if (existing.isFile() && existing.nlink > 1)
      throw hardLinkError(resolved.input, resolved.canonical, existing.nlink);
    // A symlink here was swapped in after the check: rename replaces the link itself, never its target.
    const mode = existing.isFile() ? existing.mode & 0o7777 : undefined;
    await writeFileAtomic(target, data, mode === undefined ? {} : { mode });
    if (existing.isFile() && (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.())) {
      await chown(target, existing.uid, existing.gid).catch(() => undefined);
    }
    return { created: false };
  } finally {
    await dir.close();
  }
}

function exists(resolved: ResolvedPath): WorkspaceError {
  return new WorkspaceError(
    "exists",
    `file already exists: ${resolved.input}`,
    resolved.input,
    resolved.canonical,
  );
}

/** Reads a whole checked file, refusing files over `maxBytes` (error says the size and the limit). */
export async function readChecked(resolved: ResolvedPath, maxBytes: number): Promise<Buffer> {
  const handle = await openForRead(resolved);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw tooLarge(resolved, size, maxBytes);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The `too_large` error, naming the size and the limit. */
export function tooLarge(resolved: ResolvedPath, size: number, limit: number): WorkspaceError {
  return new WorkspaceError(
    "too_large",
    `file "${resolved.input}" is too large: ${size} bytes, limit ${limit} bytes`,
    resolved.input,
    resolved.canonical,
  );
}
