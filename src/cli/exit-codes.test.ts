/** The one exit-code mapping, table-driven: calls by error type, model tasks by stop and error kind, kills. */
import { describe, expect, it } from "vitest";
import { SETUP_KINDS } from "../llm/index.js";
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
    ["answer", false, EXIT.ok],
    ["model_error", true, EXIT.usage],
    ["model_error", false, EXIT.toolError],
    ["incomplete", false, EXIT.toolError],
    ["max_steps", false, EXIT.toolError],
    ["cancelled", false, EXIT.toolError],
  ] as const)("a task that stopped with %s (a setup problem: %s) exits %i", (stop, setup, code) => {
    expect(exitCodeForTurn(stop, setup)).toBe(code);
  });

  it("an answered task whose calls the policy refused exits 3; a refusal does not hide a failure", () => {
    expect(exitCodeForTurn("answer", false, true)).toBe(EXIT.denied);
    expect(exitCodeForTurn("step_limit", false, true)).toBe(EXIT.toolError);
    expect(exitCodeForTurn("model_error", true, true)).toBe(EXIT.usage);
  });

  it.each([
    ["unreachable", EXIT.usage],
    ["model_not_found", EXIT.usage],
    ["auth", EXIT.usage],
    ["rate_limited", EXIT.toolError],
    ["server", EXIT.toolError],
    ["bad_reply", EXIT.toolError],
  ] as const)("a model error of kind %s exits %i (the kind decides, as `run` maps it)", (kind, code) => {
    expect(exitCodeForTurn("model_error", SETUP_KINDS.has(kind))).toBe(code);
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
