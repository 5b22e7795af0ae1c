import { describe, expect, it } from "vitest";
import type { PolicyDecision, Tool } from "../core/index.js";
import { defineTool, okResult } from "../core/index.js";
import { confirmationDetails } from "./confirmation.js";

const askDecision: PolicyDecision = {
  decision: "ask",
  risk: "high",
  rule: { id: "policy.toml#2", source: "policy.toml", index: 2 },
  reason: 'rule policy.toml#2 (tool "edit_file", decision ask) matched',
};

const editTool = defineTool<{ path: string }>({
  name: "edit_file",
  description: "Edits a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
  kind: "edit",
  risk: "medium",
  describe: ({ path }) => `Edit ${path}`,
  locations: ({ path }) => [`/ws/${path}`],
  confirmation: () => ({ diff: "--- a\n+++ b\n" }),
  run: async () => okResult("ok"),
}) as unknown as Tool;

describe("confirmationDetails (R7.8)", () => {
  it("includes tool name, description, risk and affected locations, with the tool's own details", async () => {
    const invocation = editTool.build({ path: "a.txt" });
    const details = await confirmationDetails(
      editTool,
      invocation,
      askDecision,
      new AbortController().signal,
    );
    expect(details).toEqual({
      toolName: "edit_file",
      description: "Edit a.txt",
      risk: "high",
      locations: ["/ws/a.txt"],
      type: "edit",
      diff: "--- a\n+++ b\n",
      reason: 'rule policy.toml#2 (tool "edit_file", decision ask) matched',
      rule: "policy.toml#2",
    });
  });

  it("builds the details itself when the tool sees nothing to confirm", async () => {
    const lowTool = defineTool({
      name: "mcp__srv__ping",
      description: "Pings",
      parameters: { type: "object" },
      kind: "other",
      risk: "low",
      source: "mcp:srv",
      locations: () => ["https://srv.example/ping"],
      run: async () => okResult("pong"),
    });
    const invocation = lowTool.build({});
    expect(await invocation.shouldConfirmExecute(new AbortController().signal)).toBe(false);
    const decision: PolicyDecision = {
      decision: "ask",
      risk: "low",
      reason: "no rule matched; default decision ask",
    };
    const details = await confirmationDetails(lowTool, invocation, decision, new AbortController().signal);
    expect(details).toEqual({
      toolName: "mcp__srv__ping",
      description: "mcp__srv__ping",
      risk: "low",
      locations: ["https://srv.example/ping"],
      type: "mcp",
      reason: "no rule matched; default decision ask",
    });
  });

  it("still confirms with the basics when the tool's own details fail", async () => {
    const invocation = {
      ...editTool.build({ path: "b.txt" }),
      shouldConfirmExecute: async () => {
        throw new Error("diff failed");
      },
    };
    const details = await confirmationDetails(
      editTool,
      invocation,
      askDecision,
      new AbortController().signal,
    );
    expect(details.description).toBe("Edit b.txt");
    expect(details.locations).toEqual(["/ws/b.txt"]);
    expect(details.diff).toBeUndefined();
  });

  it("gives up when the call was cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const invocation = {
      ...editTool.build({ path: "b.txt" }),
      shouldConfirmExecute: async () => {
        throw new DOMException("aborted", "AbortError");
      },
    };
    await expect(confirmationDetails(editTool, invocation, askDecision, controller.signal)).rejects.toThrow(
      "aborted",
    );
  });
});
