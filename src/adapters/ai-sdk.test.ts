/**
 * What only the AI SDK adapter has (the outcomes every adapter shares are in adapter-contract.test.ts): the
 * SDK answers a refused approval itself, so the refusal is audited from the next step's messages — once, even
 * when the same history is sent again in later calls.
 */
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { aiSdkTools } from "./ai-sdk.js";

let fixture: PolicyGate;

beforeAll(async () => {
  fixture = await policyGate("aisdk");
});
afterAll(async () => {
  await fixture?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const text = (t: string) => ({
  content: [{ type: "text" as const, text: t }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage,
  warnings: [],
});

describe("aiSdkTools", () => {
  it("audits a refused approval once, though the history carrying it is sent again", async () => {
    const set = aiSdkTools(fixture.gate);
    const first = await generateText({
      model: new MockLanguageModelV3({
        doGenerate: [
          {
            content: [
              { type: "tool-call", toolCallId: "c-no", toolName: "launch", input: '{"what":"boat"}' },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          },
        ],
      }),
      ...set,
      prompt: "launch",
      stopWhen: stepCountIs(3),
    });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request).toBeDefined();
    const history: ModelMessage[] = [
      { role: "user", content: "launch" },
      ...first.response.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved: false }],
      },
    ];
    const before = fixture.audit.records.length;
    // Two steps in one call, then the whole history again in a second call.
    const second = await generateText({
      model: new MockLanguageModelV3({ doGenerate: [text("one"), text("two")] }),
      ...set,
      messages: history,
    });
    await generateText({
      model: new MockLanguageModelV3({ doGenerate: [text("three")] }),
      ...set,
      messages: [...history, ...second.response.messages, { role: "user", content: "again" }],
    });
    expect(fixture.ran).not.toContain("launch:boat");
    expect(fixture.audit.records.slice(before)).toEqual([
      expect.objectContaining({
        tool: "launch",
        callId: "c-no",
        decision: "ask",
        outcome: "denied_by_policy",
      }),
    ]);
  });
});
