/** How a session looks: tool lines, progress for long tools, sub-agent prefixes, the answer questions. */
import { describe, expect, it } from "vitest";
import { type CallResult, ownLabel } from "../../core/index.js";
import { alwaysScope, parseAnswer } from "./ask.js";
import { EventRenderer, toolLine } from "./render.js";

const result = (over: Partial<CallResult> = {}): CallResult => ({
  ok: true,
  tool: "shell",
  label: ownLabel("shell"),
  decision: "allow",
  rule: null,
  risk: "low",
  durationMs: 1234,
  llmContent: "",
  returnDisplay: "",
  ...over,
});

function render(events: Parameters<EventRenderer["handle"]>[0][]): string {
  let out = "";
  const r = new EventRenderer({ write: (t) => (out += t), color: false });
  for (const e of events) r.handle(e);
  r.finish();
  return out;
}

describe("EventRenderer", () => {
  it("puts tool lines on their own line after streamed text, with decision and duration", () => {
    expect(
      render([
        { type: "text", chunk: "Let me " },
        { type: "text", chunk: "check." },
        { type: "tool_start", id: "1", name: "shell", args: {}, description: "npm test" },
        { type: "tool_end", id: "1", name: "shell", description: "npm test", result: result() },
        { type: "text", chunk: "All green." },
      ]),
    ).toBe("Let me check.\n  ✓ shell · npm test · allow · 1.2 s\nAll green.\n");
  });

  it("shows a few lines of a long tool's progress, then an ellipsis", () => {
    const output = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
    const text = render([
      { type: "tool_start", id: "1", name: "shell", args: {}, description: "make" },
      { type: "tool_output", id: "1", name: "shell", chunk: output },
      { type: "tool_output", id: "1", name: "shell", chunk: "more" },
    ]);
    expect(text.split("\n").filter(Boolean)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => `    │ line ${i + 1}`),
      "    │ …",
    ]);
  });

  it("prefixes a sub-agent's lines with its name and keeps its prose out", () => {
    expect(
      render([
        { type: "text", chunk: "child prose", agent: "leaf", depth: 1 },
        { type: "notice", message: "spawn_agents removed", agent: "leaf", depth: 1 },
        {
          type: "tool_end",
          id: "1",
          name: "shell",
          description: "rm x",
          agent: "leaf",
          depth: 1,
          result: result({
            ok: false,
            decision: "deny",
            durationMs: 3,
            error: { type: "denied_by_policy", message: "shell was denied: no" },
          }),
        },
      ]),
    ).toBe(
      "  [leaf] ! spawn_agents removed\n  [leaf] ✗ shell · rm x · deny · 3 ms\n    [leaf] shell was denied: no\n",
    );
  });

  it("marks a call that never reached the policy", () => {
    expect(
      toolLine(
        "",
        "nope",
        "nope {}",
        result({
          ok: false,
          decision: null,
          durationMs: 0.4,
          error: { type: "tool_not_found", message: 'tool not found: "nope"' },
        }),
      ),
    ).toBe('  ✗ nope · nope {} · not run · 0 ms\n    tool not found: "nope"');
  });
});

describe("the confirmation question", () => {
  it.each([
    ["y", "yes"],
    ["YES ", "yes"],
    ["", "no"],
    ["n", "no"],
    ["a", "always"],
    ["always", "always"],
    ["sure", undefined],
  ])("reads %j as %s", (text, want) => {
    expect(parseAnswer(text)).toBe(want);
  });

  it("says what always covers in toolgate's words: the exact command or change, never a program", () => {
    const base = { description: "d", risk: "high" as const, locations: [], sandbox: "none" };
    expect(alwaysScope({ ...base, toolName: "shell", type: "exec", command: "npm test" })).toBe(
      "exactly this command (same words, same folder)",
    );
    expect(alwaysScope({ ...base, toolName: "edit_file", type: "edit", locations: ["/w/a.ts"] })).toBe(
      "exactly this change (same file, same edit)",
    );
    expect(alwaysScope({ ...base, toolName: "web_fetch", type: "fetch" })).toBe(
      "exactly this web_fetch call (same arguments)",
    );
  });
});
