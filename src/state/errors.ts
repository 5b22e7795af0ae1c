/**
 * @module state/errors
 * The one error class the state stores throw, with a code a caller can branch on (tools map codes to
 * typed tool errors, the CLI to exit codes) and a message a person can act on.
 */

/** Why a store operation failed. */
export type StateErrorCode =
  /** A memory key or todo text/status that the store refuses. */
  | "invalid"
  /** A todo id that does not exist. */
  | "not_found"
  /** A conditional write found the record changed since it was read (its revision differs); nothing was written. */
  | "conflict"
  /** The file was written by a newer toolgate (a higher format version); it is left untouched. */
  | "newer_format"
  /** Another process held the lock for longer than the wait allows. */
  | "lock_timeout"
  /** Our lock went stale while we held it (event loop blocked past the stale period); nothing was written. */
  | "lock_lost"
  /** The file system refused (permission, disk full, read-only); the previous file is intact. */
  | "io";

/** A failure of a state store. `path` is where the store lives (the store file, for the file backend). */
export class StateError extends Error {
  override readonly name = "StateError";
  constructor(
    readonly code: StateErrorCode,
    message: string,
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large (file system or process file-size limit)",
  EISDIR: "a directory is in the way",
  ENOTDIR: "a parent path is not a directory",
  EMFILE: "too many open files",
};

/** Wraps a file-system error into an `io` {@link StateError} saying what failed, where, and why. */
export function ioError(action: string, path: string, error: unknown): StateError {
  const code = (error as { code?: unknown })?.code;
  const reason =
    typeof code === "string"
      ? `${REASONS[code] ?? (error as Error).message} (${code})`
      : error instanceof Error
        ? error.message
        : String(error);
  return new StateError("io", `could not ${action} ${path}: ${reason}`, path, { cause: error });
}
