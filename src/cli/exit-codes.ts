/**
 * @module cli/exit-codes
 * The exit codes of DESIGN §4, mapped in one place: 0 success; 1 the tool ran and reported an error;
 * 2 bad usage or configuration; 3 denied by policy (including an `ask` nobody answered); and 128 + the
 * signal's number when a kill ends the process. Commands return these; nothing else writes a number.
 */
// Types only: every command loads this file at start-up, so it must not load the core or the model clients.
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

/**
 * A model task's exit code (`toolgate run`) from how it stopped: an answer is success — unless the policy
 * refused one of the task's calls (`denied`: a deny, or an ask nobody could answer), then 3, as for `call`: the
 * answer is printed, but the task did not get to do all it tried; a model error whose kind means "start or
 * configure something" (`setup`: the llm module's SETUP_KINDS — unreachable server, unknown model, refused
 * key) is bad usage; any other stop (a failing model, an incomplete reply, the step limit, cancellation) is a
 * failure. Decided from the kind, never from the message's text.
 */
export function exitCodeForTurn(stopReason: string, setup: boolean, denied = false): ExitCode {
  if (stopReason === "answer") return denied ? EXIT.denied : EXIT.ok;
  if (stopReason === "model_error" && setup) return EXIT.usage;
  return EXIT.toolError;
}

/** 128 + the signal's number: how a process killed by a signal conventionally exits. */
const SIGNAL_EXIT: Readonly<Partial<Record<NodeJS.Signals, number>>> = {
  SIGHUP: 128 + 1,
  SIGINT: 128 + 2,
  SIGTERM: 128 + 15,
};

/** The exit code after a kill by `signal` (1 for a signal without a conventional code here). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return SIGNAL_EXIT[signal] ?? EXIT.toolError;
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
