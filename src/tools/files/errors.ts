/**
 * @module tools/files/errors
 * Maps workspace errors and file-system errors to the typed tool errors a caller sees (the error names
 * the path and the reason), so every file tool fails the same way.
 */

import type { ToolErrorType } from "../../core/index.js";
import { ToolFailure } from "../../core/index.js";
import {
  isErrno,
  type PathIntent,
  type Workspace,
  WorkspaceError,
  type WorkspaceErrorCode,
} from "../../workspace/index.js";

const TYPE_BY_CODE: Record<WorkspaceErrorCode, ToolErrorType> = {
  outside_root: "path_not_allowed",
  protected: "path_not_allowed",
  invalid_path: "path_not_allowed",
  hard_link: "path_not_allowed",
  changed: "path_not_allowed",
  not_found: "file_not_found",
  wrong_type: "invalid_params",
  exists: "file_exists",
  too_large: "file_too_large",
};

const ERRNO_REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "a parent is not a directory",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  EMFILE: "too many open files",
  EBUSY: "resource busy",
};

/** Converts anything a file operation threw into a {@link ToolFailure} naming `path`; aborts pass through. */
export function toToolFailure(error: unknown, path: string, action: string): unknown {
  if (error instanceof ToolFailure) return error;
  if (error instanceof WorkspaceError) {
    return new ToolFailure(TYPE_BY_CODE[error.code], error.message, {
      path: error.path,
      reason: error.code,
      ...(error.canonical ? { canonical: error.canonical } : {}),
    });
  }
  if (isErrno(error, "ENOENT")) return new ToolFailure("file_not_found", `file not found: ${path}`, { path });
  if (error instanceof Error && (error.name === "AbortError" || isErrno(error, "ABORT_ERR"))) return error;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = (code && ERRNO_REASONS[code]) ?? error.message;
    return new ToolFailure("execution_failed", `cannot ${action} "${path}": ${reason}`, {
      path,
      ...(code ? { code } : {}),
    });
  }
  return new ToolFailure("execution_failed", `cannot ${action} "${path}": ${String(error)}`, { path });
}

/** Runs a file operation, rethrowing its failure as a typed {@link ToolFailure}. */
export async function withPathErrors<T>(path: string, action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toToolFailure(error, path, action);
  }
}

/**
 * A file tool's `precheck`: the workspace's containment of the call's path arguments (`Workspace.contain`:
 * the form, inside a root, not protected for writing), refused as the typed failure `run` would give
 * (`path_not_allowed`). Missing files and types are left to `run`.
 */
export async function containPaths(
  workspace: Pick<Workspace, "contain">,
  intent: PathIntent,
  paths: readonly (string | undefined)[],
): Promise<void> {
  for (const path of paths) {
    if (path === undefined) continue;
    try {
      await workspace.contain(path, intent);
    } catch (error) {
      throw toToolFailure(error, path, intent === "write" ? "write" : "read");
    }
  }
}
