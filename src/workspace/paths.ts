/**
 * @module workspace/paths
 * Path strings and canonical paths: refusing forms that must never reach the file system (NUL bytes, Windows
 * drive and UNC forms), canonicalizing through symlinks (also for paths that do not exist yet), and comparing
 * paths on component boundaries so `/proj-evil` is never inside `/proj`.
 */
import { realpathSync } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { isErrno, WorkspaceError } from "./errors.js";

/**
 * `realpath(3)` called synchronously: a few `lstat`s on a local disk, cheaper than the thread-pool round trip
 * of the promise form, which dominated every path-conditioned policy check (~90 of its ~100 µs). The price is
 * that a hung network mount blocks the event loop instead of one pool thread.
 */
async function realpath(path: string): Promise<string> {
  return realpathSync.native(path);
}

/** The most symlinks followed while canonicalizing one path (Linux's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Refuses path strings that are never valid tool arguments: empty, NUL bytes, Windows drive-letter forms
 * (`C:\x`, `C:x`, `C:`), UNC and device forms (`\\server\share`, `\\?\C:\`, `//server/share`).
 * Returns the reason, or undefined when the string is acceptable.
 */
export function pathSyntaxProblem(raw: string): string | undefined {
  if (raw.length === 0) return "the path is empty";
  if (raw.includes("\0")) return "the path contains a NUL byte";
  if (/^[a-zA-Z]:/.test(raw)) return "Windows drive-letter paths are not accepted";
  if (/^[\\/]{2}/.test(raw))
    return "UNC and device paths (\\\\server\\share, //server/share) are not accepted";
  return undefined;
}

/** A `/` starting an empty, `.` or `..` component: what `path.resolve` would rewrite. */
const NOT_NORMAL = /\/(?:\.\.?)?(?:\/|$)/;

/**
 * The absolute form of `path` against `base`. A path already absolute and normal (no empty, `.` or `..`
 * component, no trailing `/`) is returned as it is, without `path.resolve`'s walk over its characters:
 * grep checks every file ripgrep prints.
 */
export function absoluteFrom(base: string, path: string): string {
  return path.startsWith("/") && !NOT_NORMAL.test(path) ? path : resolve(base, path);
}

/** True when `child` equals `parent` or lies below it, compared on whole path components. */
export function isInsideOrEqual(parent: string, child: string): boolean {
  if (!child.startsWith(parent)) return false;
  // Checked without building `parent + sep`: this runs once per file grep prints.
  return child.length === parent.length || parent.endsWith(sep) || child.startsWith(sep, parent.length);
}

/**
 * The canonical form of an absolute path: every existing component resolved through symlinks. For a path
 * that does not exist yet, the nearest existing ancestor is resolved and the missing tail appended — and a
 * dangling symlink on the way is followed by reading its target, so a link to a missing file outside the roots
 * canonicalizes to that outside file (and is refused), instead of looking like a new file inside.
 *
 * @throws WorkspaceError `invalid_path` on symlink loops or components that cannot be resolved
 */
export async function canonicalize(absolute: string): Promise<string> {
  let current = resolve(absolute);
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    try {
      return await realpath(current);
    } catch (error) {
      if (!isErrno(error, "ENOENT", "ENOTDIR")) throw resolveError(absolute, error);
    }
    // Walk up to the nearest ancestor that resolves.
    const tail: string[] = [];
    let existing = current;
    let real: string | undefined;
    while (real === undefined) {
      tail.unshift(basename(existing));
      const parent = dirname(existing);
      if (parent === existing) throw resolveError(absolute, new Error("no existing ancestor"));
      existing = parent;
      try {
        real = await realpath(existing);
      } catch (error) {
        if (!isErrno(error, "ENOENT", "ENOTDIR")) throw resolveError(absolute, error);
      }
    }
    const first = join(real, tail[0] as string);
    let isLink = false;
    try {
      isLink = (await lstat(first)).isSymbolicLink();
    } catch (error) {
      if (!isErrno(error, "ENOENT", "ENOTDIR")) throw resolveError(absolute, error);
    }
    if (!isLink) return join(real, ...tail);
    // A dangling symlink: continue from where it points.
    const target = await readlink(first);
    current = resolve(isAbsolute(target) ? target : join(real, target), ...tail.slice(1));
  }
  throw new WorkspaceError(
    "invalid_path",
    `cannot resolve path "${absolute}": too many levels of symbolic links`,
    absolute,
  );
}

function resolveError(path: string, error: unknown): WorkspaceError {
  const reason = isErrno(error, "ELOOP")
    ? "too many levels of symbolic links"
    : error instanceof Error
      ? error.message
      : String(error);
  return new WorkspaceError("invalid_path", `cannot resolve path "${path}": ${reason}`, path);
}

/** Path of `child` relative to `parent` with `/` separators; "" when they are equal. */
export function relativeInside(parent: string, child: string): string {
  if (child === parent) return "";
  const start = parent.endsWith(sep) ? parent.length : parent.length + 1;
  const rel = child.slice(start);
  return sep === "/" ? rel : rel.split(sep).join("/");
}
