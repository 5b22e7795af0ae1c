/**
 * @module core/errors
 * Turning failures into results: every tool failure becomes a {@link ToolResult} with a typed error.
 * Also the two exception classes toolgate throws itself: bad tool input, and bad configuration.
 */
import type { ToolError, ToolErrorType, ToolResult } from "./types.js";

/**
 * Thrown by `Tool.build` for parameters it refuses: ones that do not match the tool's schema, or a semantic
 * problem the schema cannot express. The pipeline turns it into an `invalid_params` result naming each problem.
 */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
  /** The error type a call that throws this gets. */
  readonly type = "invalid_params" as const;
  /** One sentence per problem (`parameter 'path' must be a string`); the message joins them. */
  readonly problems: readonly string[];
  constructor(message: string, problems?: readonly string[]) {
    super(message);
    this.problems = problems ?? [message];
  }
}

/**
 * A failure a tool raises on purpose, with its type (becomes `ToolResult.error`).
 * @example throw new ToolFailure("file_not_found", `file not found: ${path}`, { path })
 */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure";
  constructor(
    readonly type: ToolErrorType,
    message: string,
    readonly details?: ToolError["details"],
  ) {
    super(message);
  }
}

/**
 * Bad configuration or usage (policy file, options, flags). The CLI maps it to exit code 2.
 * `file` and `location` say where the problem was written, when it was written in a file.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }
}

/** A result carrying a typed error. The model sees `Error (type): message`. */
export function errorResult(
  type: ToolErrorType,
  message: string,
  details?: ToolError["details"],
): ToolResult {
  const error: ToolError = details ? { type, message, details } : { type, message };
  return { llmContent: `Error (${type}): ${message}`, returnDisplay: `Error: ${message}`, error };
}

/** A successful result; `display` defaults to the model text. */
export function okResult(llmContent: string, display?: string, data?: unknown): ToolResult {
  const result: ToolResult = { llmContent, returnDisplay: display ?? llmContent };
  if (data !== undefined) result.data = data;
  return result;
}

/** True when `error` is an abort (from an AbortSignal or an aborted fetch/child process). */
export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === "AbortError" || (error as { code?: string }).code === "ABORT_ERR")
  );
}

/** Converts anything a tool threw into a result. `ToolFailure` keeps its type; aborts become `cancelled`. */
export function resultFromThrown(error: unknown, toolName: string, signal?: AbortSignal): ToolResult {
  if (error instanceof ToolFailure) return errorResult(error.type, error.message, error.details);
  if (signal?.aborted || isAbortError(error)) return errorResult("cancelled", `${toolName} was cancelled`);
  const message = error instanceof Error ? error.message : String(error);
  return errorResult("execution_failed", `${toolName} failed: ${message}`);
}
