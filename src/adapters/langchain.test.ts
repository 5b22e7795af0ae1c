/**
 * What only the LangChain adapter has (the outcomes every adapter shares are in adapter-contract.test.ts):
 * `@langchain/core` has no approval step, so without a `confirm` of its own an `ask` goes to the gate's
 * confirmer (its bus); a tool invoked with bare arguments, not a tool call, reports a refusal by throwing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { langchainTools, ToolgateCallError } from "./langchain.js";

let fixture: PolicyGate;
const asked: string[] = [];

beforeAll(async () => {
  fixture = await policyGate("langchain");
  fixture.gate.bus.onConfirmation(async (request) => {
    asked.push(request.details.toolName);
    return { approved: (request.call.args as { what?: string }).what === "yes" };
  });
});
afterAll(async () => {
  await fixture?.close();
});

const launch = () => langchainTools(fixture.gate).find((t) => t.name === "launch")!;

describe("langchainTools", () => {
  it("without a confirm, the gate's confirmer answers an ask", async () => {
    asked.length = 0;
    const message = await launch().invoke({
      id: "lc-bus",
      name: "launch",
      args: { what: "yes" },
      type: "tool_call",
    });
    expect(asked).toEqual(["launch"]);
    expect(message).toMatchObject({ content: "launch did yes", status: "success" });
  });

  it("invoked with bare arguments, a refused call throws the gate's ToolgateCallError", async () => {
    const error = await launch()
      .invoke({ what: "no" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ToolgateCallError);
    expect((error as ToolgateCallError).result).toMatchObject({ ok: false });
    expect((error as ToolgateCallError).message).toMatch(/launch was denied/);
    expect(fixture.ran).not.toContain("launch:no");
  });
});
