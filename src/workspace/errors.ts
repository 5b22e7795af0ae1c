/**
 * @module workspace/errors
 * The one error type the workspace throws. It carries a machine-readable code; tools map codes to their own
 * typed errors (the workspace imports nothing else of toolgate's, so it cannot use core's error types).
 */

/** Why the workspace refused or failed an operation. */
export type WorkspaceErrorCode =
  /** The canonical path is not inside any allowed root (including through symlinks). */
  | "outside_root"
  /** The path is protected: never writable through file tools. */
  | "protected"
  /** The file or directory does not exist. */
  | "not_found"
  /** The path string itself is refused: NUL bytes, Windows drive or UNC forms, empty, symlink loops. */
  | "invalid_path"
  /** The file has more than one hard link; overwriting it could change a file elsewhere. */
  | "hard_link"
  /** A file was expected but the path is a directory (or the other way round). */
  | "wrong_type"
  /** The file exists and the operation creates new files only. */
  | "exists"
  /** The file is larger than the configured limit. */
  | "too_large"
  /** The file system changed between the check and the operation (a swapped symlink or directory). */
  | "changed";

/**
 * An error from the workspace. `message` names the path and the reason; `path` is the path as the caller gave
 * it, `canonical` where it led (when known).
 */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
  constructor(
    readonly code: WorkspaceErrorCode,
    message: string,
    readonly path: string,
    readonly canonical?: string,
  ) {
    super(message);
  }
}

/** The refusal to write a file that has other hard links (its data is also reachable under another name). */
export function hardLinkError(input: string, canonical: string, links: number): WorkspaceError {
  return new WorkspaceError(
    "hard_link",
    `refusing to overwrite "${input}": it has ${links} hard links, so the same data is also ` +
      "reachable under another name (possibly outside the workspace)",
    input,
    canonical,
  );
}

/** True when `error` is a Node system error with one of `codes` (`ENOENT`, ...). */
export function isErrno(error: unknown, ...codes: string[]): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    codes.includes((error as NodeJS.ErrnoException).code as string)
  );
}
