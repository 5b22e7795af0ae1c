/**
 * @module utils/plain-file
 * The one way toolgate reads a file someone else may have put there (a workspace's git files, its policy,
 * config and MCP files, what a command left behind): only a regular file is read. A FIFO would make the read
 * wait forever for a writer (the whole process, when synchronous; a thread-pool thread no signal frees, when
 * not), a device may never end (`/dev/zero`) and a socket cannot be opened; each is refused with its kind
 * named. The open itself is non-blocking, so a file swapped for a FIFO after the type check cannot block it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";

/** How {@link readPlainFileSync} / {@link readPlainFile} read. */
export interface PlainReadOptions {
  /** Follow a symbolic link at the last component (default true; the target must be a regular file too). */
  follow?: boolean;
  /** Refuse a file larger than this many bytes (default {@link PLAIN_FILE_MAX_BYTES}). */
  maxBytes?: number;
}

/** The default size limit: far above any config, policy or rule file. */
export const PLAIN_FILE_MAX_BYTES = 16 * 1024 * 1024;

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * A file toolgate would not read: not a regular file, or over the size limit. `code` is `ENOTPLAIN`, so a
 * caller that treats every read error alike (missing, unreadable) keeps doing so; `kind` names what it was.
 */
export class NotPlainFileError extends Error {
  override readonly name = "NotPlainFileError";
  readonly code = "ENOTPLAIN";
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(
      kind === "too large"
        ? `${path} is too large to read`
        : `${path} is ${kind}, not a regular file: not read (a FIFO or device could block or never end)`,
    );
  }
}

/** What a non-regular file is, in words; undefined for a regular file. */
function kindOf(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isDirectory()) return "a directory";
  if (info.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

function shown(path: string | Buffer): string {
  return typeof path === "string" ? path : path.toString("latin1");
}

function check(path: string | Buffer, info: Stats, maxBytes: number): void {
  const kind = kindOf(info);
  if (kind) throw new NotPlainFileError(shown(path), kind);
  if (info.size > maxBytes) throw new NotPlainFileError(shown(path), "too large");
}

function flagsFor(follow: boolean): number {
  return constants.O_RDONLY | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW);
}

/** ELOOP from O_NOFOLLOW means the last component is a link: said as such. */
function linkRefused(path: string | Buffer, error: unknown, follow: boolean): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!follow && code === "ELOOP") return new NotPlainFileError(shown(path), "a symbolic link");
  // A socket cannot be opened at all.
  if (code === "ENXIO") return new NotPlainFileError(shown(path), "a socket");
  return error;
}

/**
 * The bytes of a regular file. Throws the usual fs error when it is missing or unreadable, and a
 * {@link NotPlainFileError} when it is not a regular file or is too large.
 * @example readPlainFileSync(".git/config").toString("utf8")
 */
export function readPlainFileSync(path: string | Buffer, options: PlainReadOptions = {}): Buffer {
  const follow = options.follow ?? true;
  const maxBytes = options.maxBytes ?? PLAIN_FILE_MAX_BYTES;
  // What a link leads to is looked at before opening it: a device is never opened, not even non-blocking.
  if (follow) check(path, statSync(path), maxBytes);
  let fd: number;
  try {
    fd = openSync(path, flagsFor(follow));
  } catch (error) {
    throw linkRefused(path, error, follow);
  }
  try {
    const info = fstatSync(fd);
    check(path, info, maxBytes);
    // Read to the end, not to the size seen: a file may grow meanwhile, but never past the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(info.size - total, 0) + 1, 1024 * 1024));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new NotPlainFileError(shown(path), "too large");
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of a regular file, without holding a thread-pool thread on a FIFO. Errors as
 * {@link readPlainFileSync}.
 * @example (await readPlainFile(".mcp.json")).toString("utf8")
 */
export async function readPlainFile(path: string | Buffer, options: PlainReadOptions = {}): Promise<Buffer> {
  const follow = options.follow ?? true;
  const maxBytes = options.maxBytes ?? PLAIN_FILE_MAX_BYTES;
  if (follow) check(path, await stat(path), maxBytes);
  let handle: FileHandle;
  try {
    handle = await open(path, flagsFor(follow));
  } catch (error) {
    throw linkRefused(path, error, follow);
  }
  try {
    check(path, await handle.stat(), maxBytes);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw new NotPlainFileError(shown(path), "too large");
    return bytes;
  } finally {
    await handle.close();
  }
}

/** Whether an error from the readers above is a refused (not a missing or unreadable) file. */
export function isNotPlainFile(error: unknown): error is NotPlainFileError {
  return error instanceof NotPlainFileError;
}

/**
 * Why a read failed, in a few words for an error message: the kind of a refused file, else the error code.
 * @example whyUnread(error) // "a FIFO, not a regular file" or "ENOENT"
 */
export function whyUnread(error: unknown): string {
  if (error instanceof NotPlainFileError)
    return error.kind === "too large" ? "too large" : `${error.kind}, not a regular file`;
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}
