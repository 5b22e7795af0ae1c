/**
 * Both ends of the contract as data: the exact stdin per format and event (testdata/hook-input.json, with
 * the hosts' published field lists), and what exit statuses and outputs mean.
 */
import { describe, expect, it } from "vitest";
import type { HookSpec } from "./sources.js";
import TABLE from "./testdata/hook-input.json" with { type: "json" };
import { type HookCall, hookInput, verdictOf } from "./verdict.js";

const NOW = new Date("2026-01-02T03:04:05.000Z");

describe("the stdin a hook gets", () => {
  it.each(TABLE.cases.map((c) => [`${c.format} ${c.event}`, c] as const))("%s", (_, c) => {
    const spec = { format: c.format, event: c.event } as HookSpec;
    const call = { ...TABLE.call, event: c.event } as HookCall;
    if (c.event === "pre_tool") delete call.result;
    const stdin = hookInput(spec, call, NOW);
    expect(stdin).toEqual(c.stdin);
    expect(Object.keys(stdin).sort()).toEqual([...c.fields].sort());
  });
});

describe("what a hook's run means", () => {
  const run = (code: number | null, stdout = "", stderr = "") => ({ code, stdout, stderr, durationMs: 1 });
  const cases: [string, ReturnType<typeof run>, object][] = [
    ["exit 0, no output: no opinion", run(0), {}],
    ["exit 2: deny with stderr", run(2, "", "  not here \n"), { decision: "deny", reason: "not here" }],
    [
      "Claude's permissionDecision",
      run(
        0,
        JSON.stringify({
          hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "why" },
        }),
      ),
      { decision: "ask", reason: "why" },
    ],
    ["Claude's older approve", run(0, '{"decision":"approve"}'), { decision: "allow" }],
    ["gemini's deny", run(0, '{"decision":"deny","reason":"r"}'), { decision: "deny", reason: "r" }],
    ["block (post-tool)", run(0, '{"decision":"block","reason":"r"}'), { decision: "deny", reason: "r" }],
    [
      "continue: false stops the call",
      run(0, '{"continue":false,"stopReason":"s"}'),
      { decision: "deny", reason: "s" },
    ],
    ["additionalContext", run(0, '{"hookSpecificOutput":{"additionalContext":"c"}}'), { context: "c" }],
    ["JSON that is not an object", run(0, "[1]"), { failure: "printed JSON that is not an object" }],
  ];
  it.each(cases)("%s", (_, r, want) => {
    expect(verdictOf(r)).toEqual(want);
  });
});
