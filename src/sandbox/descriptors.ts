/**
 * @module sandbox/descriptors
 * What the survey decided is what bwrap mounts: every source toolgate mounts from the workspace is opened here
 * once, without following a link, and checked to be at the very path that was surveyed (the kernel's own name
 * for the descriptor). bwrap is given the descriptor (`/proc/self/fd/N`); it still turns it into a path when it
 * starts, so the check inside the sandbox (verify.ts) compares what got mounted with the descriptor.
 *
 * Paths here are raw: binary strings holding one byte per character, so a file name that is not UTF-8 (which
 * Node would turn into U+FFFD) still names exactly that file. {@link rawOf} and {@link textOf} convert.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";

/** Linux's O_PATH (the same on x86-64 and aarch64): a descriptor that names a file without opening it. */
const O_PATH = 0o10000000;
const NO_FOLLOW = O_PATH | constants.O_NOFOLLOW;

/** A path in text (UTF-8) as raw bytes. */
export function rawOf(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** A raw path's bytes, for the file system calls. */
export function bytesOf(raw: string): Buffer {
  return Buffer.from(raw, "latin1");
}

/** A raw path as text (for messages and pattern matching; bytes that are not UTF-8 become U+FFFD). */
export function textOf(raw: string): string {
  return bytesOf(raw).toString("utf8");
}

/** An opened path: the descriptor (close it) and what it is. */
export interface Opened {
  fd: number;
  stat: Stats;
}

/**
 * Opens `raw` (absolute) without following a link at its end and checks that the descriptor's own path is
 * `raw`: a link anywhere on the way, or a rename meanwhile, gives a different path. A final link is opened
 * as the link itself (its `stat` says so).
 * @returns undefined when nothing is there; `"moved"` when the path did not lead to itself.
 */
export function openChecked(raw: string): Opened | "moved" | undefined {
  let fd: number;
  try {
    fd = openSync(bytesOf(raw), NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  try {
    const at = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" });
    if (!at.equals(bytesOf(raw))) {
      closeSync(fd);
      return "moved";
    }
    return { fd, stat: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The kind of file a stat describes, in the survey's words. */
export function kindOf(stat: Stats): "file" | "dir" | "link" | "other" {
  if (stat.isSymbolicLink()) return "link";
  if (stat.isDirectory()) return "dir";
  return stat.isFile() ? "file" : "other";
}

/**
 * A raw path through an opened folder: `/proc/self/fd/N/name` reaches `name` inside exactly that folder, whatever
 * happens to the folder's own path meanwhile (the way `*at()` calls do, which Node does not have).
 */
export function inside(dirFd: number, name: string): Buffer {
  return Buffer.concat([Buffer.from(`/proc/self/fd/${dirFd}/`), bytesOf(name)]);
}

/** Opens a child of an opened folder without following a link at its end. */
export function openInside(dirFd: number, name: string): Opened | undefined {
  let fd: number;
  try {
    fd = openSync(inside(dirFd, name), NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
  try {
    return { fd, stat: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Opens the folder at raw absolute `path` from `/`, one name at a time, each without following a link:
 * undefined when a name is missing, a link or not a folder. Close the result.
 */
export function openFolder(path: string): number | undefined {
  let fd = openSync("/", O_PATH | constants.O_DIRECTORY);
  for (const name of path.split("/").filter(Boolean)) {
    const next = name === ".." || name === "." ? undefined : openInside(fd, name);
    closeSync(fd);
    if (!next) return undefined;
    if (!next.stat.isDirectory()) {
      closeSync(next.fd);
      return undefined;
    }
    fd = next.fd;
  }
  return fd;
}

/**
 * A workspace file's bytes as toolgate reads them on the host: every folder on the way opened without following
 * a link, the file itself opened without following one either (a command could point a link at `~/.ssh` or
 * `/proc/self/environ`, which toolgate can read and the command cannot), non-blocking, and only when it is a
 * regular file outside procfs. At most `maxBytes` are read: more is refused, never read whole (with `head`, the
 * first `maxBytes` are returned instead).
 * Throws with the reason (an error whose `code` is `ENOENT` when the file or a folder on the way is missing).
 */
export function readInsideSync(raw: string, maxBytes: number, options: { head?: boolean } = {}): Buffer {
  const slash = raw.lastIndexOf("/");
  const name = raw.slice(slash + 1);
  const parent = openFolder(raw.slice(0, slash) || "/");
  if (parent === undefined)
    throw Object.assign(new Error(`a folder on the way to ${textOf(raw)} is missing or a link`), {
      code: "ENOENT",
    });
  let fd: number;
  try {
    fd = openSync(inside(parent, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new Error(`${textOf(raw)} is a symbolic link: not followed`);
    if (code === "ENXIO") throw new Error(`${textOf(raw)} is a socket: not read`);
    throw error;
  } finally {
    closeSync(parent);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${textOf(raw)} is not a regular file: not read`);
    if (stat.dev === procDevice()) throw new Error(`${textOf(raw)} is in procfs: not read`);
    if (options.head) {
      const head = Buffer.alloc(maxBytes);
      return head.subarray(0, readSync(fd, head, 0, maxBytes, 0));
    }
    if (stat.size > maxBytes) throw new Error(`${textOf(raw)} is larger than ${maxBytes} bytes: not read`);
    // Read to the end, not to the size seen: it may grow meanwhile, but is never read past the limit.
    let out = Buffer.allocUnsafe(stat.size + 1);
    let total = 0;
    for (;;) {
      if (total === out.length)
        out = Buffer.concat([out, Buffer.allocUnsafe(Math.min(out.length, maxBytes + 1))]);
      const n = readSync(fd, out, total, Math.min(out.length, maxBytes + 1) - total, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new Error(`${textOf(raw)} grew past ${maxBytes} bytes: not read`);
    }
    return out.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

let proc: number | undefined;
/** The device number of procfs (-1 when it is not mounted). */
function procDevice(): number {
  if (proc === undefined) {
    try {
      proc = statSync("/proc/self").dev;
    } catch {
      proc = -1;
    }
  }
  return proc;
}

/** Closes descriptors, ignoring ones already closed. */
export function closeAll(fds: Iterable<number>): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
}
