/**
 * The AI SDK adapter driven by the AI SDK's own `generateText` with its `MockLanguageModelV3`: the mock model
 * asks for a tool call, the SDK runs it through the adapter, and the gate's policy decides — allow runs,
 * ask goes through the SDK's approval flow (approved runs once, refused never runs), deny reaches the model
 * as a tool error.
 */
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { aiSdkTools, type GateToolSet } from "./ai-sdk.js";

let fixture: PolicyGate;
let set: GateToolSet;
let audit: PolicyGate["audit"];
let ran: string[];

beforeAll(async () => {
  fixture = await policyGate("aisdk");
  ({ audit, ran } = fixture);
  set = aiSdkTools(fixture.gate);
});
afterAll(async () => {
  set?.close();
  await fixture?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that calls `tool` once, then answers with text. */
function model(tool: string, what: string, id: string) {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: id, toolName: tool, input: JSON.stringify({ what }) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
}

function toolOutputs(result: Awaited<ReturnType<typeof generateText>>) {
  return result.steps
    .flatMap((s) => s.content)
    .filter((p) => p.type === "tool-result" || p.type === "tool-error");
}

describe("aiSdkTools", () => {
  it("offers every tool, and runs an allowed call through the pipeline", async () => {
    expect(Object.keys(set.tools).sort()).toEqual(expect.arrayContaining(["greet", "launch", "wipe"]));
    const result = await generateText({
      model: model("greet", "hello", "c-allow"),
      tools: set.tools,
      prompt: "greet",
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("done");
    const [out] = toolOutputs(result);
    expect(out).toMatchObject({ type: "tool-result", toolName: "greet", output: "greet did hello" });
    expect(audit.records.at(-1)).toMatchObject({
      tool: "greet",
      callId: "c-allow",
      decision: "allow",
      outcome: "ok",
    });
  });

  it("sends a policy deny to the model as a tool error, without running the tool", async () => {
    const result = await generateText({
      model: model("wipe", "disk", "c-deny"),
      tools: set.tools,
      prompt: "wipe",
      stopWhen: stepCountIs(3),
    });
    const [out] = toolOutputs(result);
    expect(out).toMatchObject({ type: "tool-error", toolName: "wipe" });
    expect(String((out as { error: unknown }).error)).toMatch(/wipe was denied/);
    expect(ran).not.toContain("wipe:disk");
    expect(audit.records.at(-1)).toMatchObject({
      tool: "wipe",
      decision: "deny",
      outcome: "denied_by_policy",
    });
  });

  async function askThenAnswer(approved: boolean, id: string) {
    const first = await generateText({
      model: model("launch", id, id),
      tools: set.tools,
      prompt: "launch",
      stopWhen: stepCountIs(3),
    });
    const requests = first.content.filter((p) => p.type === "tool-approval-request");
    expect(requests).toHaveLength(1);
    expect(ran).not.toContain(`launch:${id}`);
    const request = requests[0] as { approvalId: string; toolCall: { toolCallId: string } };
    expect(request.toolCall.toolCallId).toBe(id);
    const messages: ModelMessage[] = [
      { role: "user", content: "launch" },
      ...first.response.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved }],
      },
    ];
    const next = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: "after approval" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    });
    const second = await generateText({ model: next, tools: set.tools, messages });
    // What the model was sent after the answer: the tool's result (approved) or the SDK's denial (refused).
    return { second, prompt: JSON.stringify(next.doGenerateCalls[0]?.prompt ?? []) };
  }

  it("maps ask to the SDK's approval: approved, the call runs once without a second question", async () => {
    const { second, prompt } = await askThenAnswer(true, "c-ask-yes");
    expect(ran.filter((r) => r === "launch:c-ask-yes")).toHaveLength(1);
    expect(prompt).toContain("launch did c-ask-yes");
    expect(second.text).toBe("after approval");
    expect(audit.records.at(-1)).toMatchObject({
      tool: "launch",
      callId: "c-ask-yes",
      decision: "ask",
      outcome: "ok",
    });
  });

  it("maps ask to the SDK's approval: refused, the tool never runs", async () => {
    const before = audit.records.length;
    const { prompt } = await askThenAnswer(false, "c-ask-no");
    expect(ran).not.toContain("launch:c-ask-no");
    expect(prompt).toContain("execution-denied");
    expect(audit.records.slice(before).some((r) => r.tool === "launch" && r.outcome === "ok")).toBe(false);
  });
});
