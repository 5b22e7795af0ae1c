/**
 * @module cli/exit-codes
 * The exit codes of DESIGN §4, mapped in one place: 0 success; 1 the tool ran and reported an error;
 * 2 bad usage or configuration; 3 denied by policy (including an `ask` nobody answered).
 */
import type { ToolErrorType } from "../core/index.js";

export const EXIT = { ok: 0, toolError: 1, usage: 2, denied: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A call's exit code from its error type. Bad input (unknown tool, bad arguments) is bad usage. */
export function exitCodeForError(type: ToolErrorType | undefined): ExitCode {
  if (type === undefined) return EXIT.ok;
  if (type === "denied_by_policy") return EXIT.denied;
  if (type === "invalid_params" || type === "tool_not_found" || type === "invalid_tool") return EXIT.usage;
  return EXIT.toolError;
}

/** The exit code of several calls: usage problems first, then denials, then tool errors. */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  for (const code of [EXIT.usage, EXIT.denied, EXIT.toolError] as const)
    if (codes.includes(code)) return code;
  return EXIT.ok;
}

/** Thrown by commands for bad usage; `runCli` prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
