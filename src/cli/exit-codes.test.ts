/** The one exit-code mapping, table-driven: calls by error type, model tasks by stop and error kind, kills. */
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeForError, exitCodeForSignal, exitCodeForTurn, worstExitCode } from "./exit-codes.js";

describe("exit codes", () => {
  it.each([
    [undefined, EXIT.ok],
    ["denied_by_policy", EXIT.denied],
    ["invalid_params", EXIT.usage],
    ["tool_not_found", EXIT.usage],
    ["invalid_tool", EXIT.usage],
    ["file_not_found", EXIT.toolError],
    ["cancelled", EXIT.toolError],
  ] as const)("a call that failed with %s exits %i", (type, code) => {
    expect(exitCodeForError(type)).toBe(code);
  });

  it.each([
    ["answer", undefined, EXIT.ok],
    ["model_error", "unreachable", EXIT.usage],
    ["model_error", "model_not_found", EXIT.usage],
    ["model_error", "auth", EXIT.usage],
    ["model_error", "rate_limited", EXIT.toolError],
    ["model_error", "server", EXIT.toolError],
    ["model_error", undefined, EXIT.toolError],
    ["incomplete", "incomplete", EXIT.toolError],
    ["max_steps", undefined, EXIT.toolError],
    ["cancelled", "cancelled", EXIT.toolError],
  ] as const)("a task that stopped with %s (%s) exits %i", (stop, kind, code) => {
    expect(exitCodeForTurn(stop, kind)).toBe(code);
  });

  it.each([
    ["SIGHUP", 129],
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGUSR1", 1],
  ] as const)("a kill by %s exits %i", (signal, code) => {
    expect(exitCodeForSignal(signal)).toBe(code);
  });

  it("reports the worst of several calls: usage, then denied, then tool errors", () => {
    expect(worstExitCode([EXIT.ok, EXIT.toolError, EXIT.denied])).toBe(EXIT.denied);
    expect(worstExitCode([EXIT.denied, EXIT.usage])).toBe(EXIT.usage);
    expect(worstExitCode([EXIT.ok])).toBe(EXIT.ok);
  });
});
