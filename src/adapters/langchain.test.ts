/**
 * The LangChain adapter driven by LangChain's own parts: `FakeStreamingChatModel` (its test chat model) bound
 * to the tools streams a tool call, and the tool runs it the way LangChain agents do
 * (`tool.invoke(toolCall)` → ToolMessage). The gate's policy decides: allow runs, ask goes to the gate's bus
 * (approved runs, refused does not), deny comes back as an error ToolMessage.
 */
import { AIMessageChunk, type ToolMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { langchainTools } from "./langchain.js";

let fixture: PolicyGate;
let gate: PolicyGate["gate"];
let audit: PolicyGate["audit"];
let ran: string[];
let approve = true;
const asked: string[] = [];

beforeAll(async () => {
  fixture = await policyGate("langchain");
  ({ gate, audit, ran } = fixture);
  gate.bus.onConfirmation(async (request) => {
    asked.push(request.details.toolName);
    return approve ? { approved: true } : { approved: false, reason: "not now" };
  });
});
afterAll(async () => {
  await fixture?.close();
});

/** One model turn asking for `tool`, run by the tool LangChain bound. */
async function turn(tool: string, what: string, id: string): Promise<ToolMessage> {
  const tools = langchainTools(gate);
  const model = new FakeStreamingChatModel({
    chunks: [
      new AIMessageChunk({
        content: "",
        tool_call_chunks: [
          { id, name: tool, args: JSON.stringify({ what }), index: 0, type: "tool_call_chunk" },
        ],
      }),
    ],
  });
  const reply = await model.bindTools(tools).invoke(`please ${tool}`);
  expect(reply.tool_calls?.map((c) => c.name)).toEqual([tool]);
  const call = reply.tool_calls![0]!;
  const bound = tools.find((t) => t.name === call.name)!;
  return (await bound.invoke({ ...call, type: "tool_call" })) as ToolMessage;
}

describe("langchainTools", () => {
  it("runs an allowed call through the pipeline", async () => {
    const message = await turn("greet", "hello", "lc-allow");
    expect(message).toMatchObject({
      content: "greet did hello",
      tool_call_id: "lc-allow",
      status: "success",
    });
    expect(audit.records.at(-1)).toMatchObject({
      tool: "greet",
      callId: "lc-allow",
      decision: "allow",
      outcome: "ok",
    });
  });

  it("asks the gate's bus for an ask: approved, the tool runs", async () => {
    approve = true;
    asked.length = 0;
    const message = await turn("launch", "rocket", "lc-ask-yes");
    expect(asked).toEqual(["launch"]);
    expect(message).toMatchObject({ content: "launch did rocket", status: "success" });
    expect(ran).toContain("launch:rocket");
  });

  it("asks the gate's bus for an ask: refused, the tool does not run and the model reads why", async () => {
    approve = false;
    asked.length = 0;
    const message = await turn("launch", "boat", "lc-ask-no");
    expect(asked).toEqual(["launch"]);
    expect(message.status).toBe("error");
    expect(String(message.content)).toMatch(/launch was denied: .*not now/);
    expect(ran).not.toContain("launch:boat");
  });

  it("returns a policy deny as an error ToolMessage without running the tool", async () => {
    const message = await turn("wipe", "disk", "lc-deny");
    expect(message.status).toBe("error");
    expect(String(message.content)).toMatch(/wipe was denied/);
    expect(ran).not.toContain("wipe:disk");
    expect(audit.records.at(-1)).toMatchObject({
      tool: "wipe",
      decision: "deny",
      outcome: "denied_by_policy",
    });
  });
});
