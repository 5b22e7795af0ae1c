/**
 * @module workspace/atomic-write
 * Crash-safe file replacement: write a temp file beside the target, fsync it, rename it over the target and
 * fsync the directory. A reader never sees a half-written file and a failure leaves the old file intact.
 */
import { randomBytes } from "node:crypto";
import { constants as fsc } from "node:fs";
import { type FileHandle, link, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of the written file (default 0o666 before umask for new files). */
  mode?: number;
  /** Create a new file only: fail with `EEXIST` when the target already exists (default false). */
  exclusive?: boolean;
}

/** Builds an unpredictable temp name in the target's directory (so the final rename never crosses devices). */
function tempPathFor(target: string): string {
  const suffix = randomBytes(6).toString("hex");
  return join(dirname(target), `.${basename(target)}.${suffix}.tmp`);
}

/** fsyncs a directory so a rename or link inside it survives a crash; platforms that refuse are ignored. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, fsc.O_RDONLY);
    await handle.sync();
  } catch {
    // Some platforms (Windows, some network file systems) cannot open or fsync a directory; the data itself
    // is already durable, only the directory entry may be lost on power failure.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Writes `data` to `path` atomically.
 *
 * The data goes to a randomly named temp file in the same directory (opened with `O_EXCL`, so an attacker's
 * pre-planted file or symlink is never followed), is fsynced, then renamed over the target — a symlink at the
 * target is therefore replaced, not followed. With `exclusive` the temp file is hard-linked to the target
 * instead of renamed, which fails with `EEXIST` if anything (even a dangling symlink) exists there.
 * On any failure the temp file is removed and the previous file is left untouched.
 *
 * @param path target file path
 * @param data contents; strings are written as UTF-8
 * @param options `mode` (default 0o666 & ~umask), `exclusive` (default false)
 * @example await writeFileAtomic("/ws/a.txt", "hello\n", { mode: 0o644 });
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempPathFor(path);
  const mode = options.mode ?? 0o666;
  let handle: FileHandle | undefined;
  let tempExists = false;
  try {
    handle = await open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), mode);
    tempExists = true;
    await handle.writeFile(data);
    // The open mode is filtered by umask; an explicit mode (e.g. preserving an existing file's) must stick.
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (options.exclusive) {
      // link() never replaces an existing entry: this is the atomic "create only if absent".
      await link(temp, path);
      await unlink(temp);
      tempExists = false;
    } else {
      await rename(temp, path);
      tempExists = false;
    }
    await syncDirectory(dirname(path));
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (tempExists) await unlink(temp).catch(() => undefined);
    throw error;
  }
}
