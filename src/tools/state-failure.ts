/**
 * @module tools/state-failure
 * How the memory and write_todos tools report a failure of a state store: a typed {@link ToolFailure}
 * (bad input → `invalid_params`, a busy lock → `timeout`, the file system → `execution_failed` with the path).
 */
import { ToolFailure } from "../core/index.js";
import { StateError } from "../state/index.js";

/** Converts a store error into a ToolFailure; anything else is rethrown unchanged (the pipeline wraps it). */
export function failFromState(error: unknown): never {
  if (!(error instanceof StateError)) throw error;
  const details = error.path === undefined ? undefined : { path: error.path, code: error.code };
  switch (error.code) {
    case "invalid":
    case "not_found":
      throw new ToolFailure("invalid_params", error.message, details);
    case "lock_timeout":
      throw new ToolFailure("timeout", error.message, details);
    default:
      throw new ToolFailure("execution_failed", error.message, details);
  }
}
