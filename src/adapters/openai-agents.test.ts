/**
 * The OpenAI Agents adapter driven by the SDK's own `Runner` with a model written to its `Model` interface
 * (the SDK ships no test model): the model asks for a tool call, the runner runs it through the adapter's
 * tool, and the gate's policy decides — allow runs, ask becomes the SDK's interruption (approved: runs once
 * with no second question, also after the state is serialized; refused: never runs, and the refusal is in
 * the gate's audit log), deny comes back to the model as the gate's refusal.
 */
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  Usage,
} from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { type GateAgentTools, openaiAgentsTools, REFUSED_IN_RUN } from "./openai-agents.js";

let fixture: PolicyGate;
let set: GateAgentTools;
/** Questions that reached the gate's bus (an approved call must not ask again). */
const busAsked: string[] = [];
const runner = new Runner({ tracingDisabled: true });

beforeAll(async () => {
  fixture = await policyGate("agents");
  fixture.gate.bus.onConfirmation(async (request) => {
    busAsked.push(request.details.toolName);
    return { approved: false, reason: "the bus is not the approval step here" };
  });
  set = openaiAgentsTools(fixture.gate);
});
afterAll(async () => {
  await fixture?.close();
});

/** A model that asks for one call of `tool`, then answers "done"; it keeps every request it got. */
class OneCallModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly tool: string,
    private readonly what: string,
    private readonly callId: string,
  ) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const usage = new Usage();
    if (this.requests.length === 1)
      return {
        usage,
        output: [
          {
            type: "function_call",
            callId: this.callId,
            name: this.tool,
            arguments: JSON.stringify({ what: this.what }),
            status: "completed",
          },
        ],
      };
    return {
      usage,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "done" }],
        },
      ],
    };
  }
  // biome-ignore lint/correctness/useYield: the runner here never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used: the tests run without streaming");
  }
}

function agentWith(model: OneCallModel) {
  return new Agent({ name: "helper", instructions: "use the tools", model, tools: set.tools });
}

/** What the model was sent after the tool call: the tool's output as the runner recorded it. */
const secondInput = (model: OneCallModel) => JSON.stringify(model.requests[1]?.input ?? []);

describe("openaiAgentsTools", () => {
  it("offers every tool, and runs an allowed call through the pipeline", async () => {
    expect(set.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["greet", "launch", "wipe"]));
    const model = new OneCallModel("greet", "hello", "oa-allow");
    const result = await runner.run(agentWith(model), "greet", {
      toolErrorFormatter: set.toolErrorFormatter,
    });
    expect(result.finalOutput).toBe("done");
    expect(result.interruptions).toHaveLength(0);
    expect(secondInput(model)).toContain("greet did hello");
    expect(fixture.ran).toContain("greet:hello");
    expect(fixture.audit.records.at(-1)).toMatchObject({
      tool: "greet",
      callId: "oa-allow",
      decision: "allow",
      outcome: "ok",
    });
  });

  it("gives the model the gate's refusal for a policy deny, without running the tool", async () => {
    const model = new OneCallModel("wipe", "disk", "oa-deny");
    const result = await runner.run(agentWith(model), "wipe", { toolErrorFormatter: set.toolErrorFormatter });
    expect(result.finalOutput).toBe("done");
    expect(secondInput(model)).toMatch(/wipe was denied/);
    expect(fixture.ran).not.toContain("wipe:disk");
    expect(fixture.audit.records.at(-1)).toMatchObject({
      tool: "wipe",
      callId: "oa-deny",
      decision: "deny",
      outcome: "denied_by_policy",
    });
  });

  it("maps ask to the SDK's interruption: approved (after a serialized state), it runs once, not asked again", async () => {
    busAsked.length = 0;
    const model = new OneCallModel("launch", "rocket", "oa-ask-yes");
    const agent = agentWith(model);
    const first = await runner.run(agent, "launch", { toolErrorFormatter: set.toolErrorFormatter });
    expect(first.interruptions).toHaveLength(1);
    expect(first.interruptions[0]).toMatchObject({ name: "launch" });
    expect(fixture.ran).not.toContain("launch:rocket");

    // The application keeps the state elsewhere and answers later.
    const state = await RunState.fromString(agent, first.state.toString());
    state.approve(state.getInterruptions()[0]!);
    const second = await runner.run(agent, state, { toolErrorFormatter: set.toolErrorFormatter });
    expect(second.finalOutput).toBe("done");
    expect(fixture.ran.filter((r) => r === "launch:rocket")).toHaveLength(1);
    expect(busAsked).toEqual([]);
    expect(secondInput(model)).toContain("launch did rocket");
    expect(fixture.audit.records.at(-1)).toMatchObject({
      tool: "launch",
      callId: "oa-ask-yes",
      decision: "ask",
      outcome: "ok",
    });
  });

  it("maps ask to the SDK's interruption: refused, the tool never runs and the refusal is audited", async () => {
    busAsked.length = 0;
    const model = new OneCallModel("launch", "boat", "oa-ask-no");
    const agent = agentWith(model);
    const first = await runner.run(agent, "launch", { toolErrorFormatter: set.toolErrorFormatter });
    expect(first.interruptions).toHaveLength(1);
    first.state.reject(first.interruptions[0]!);
    const before = fixture.audit.records.length;
    const second = await runner.run(agent, first.state, { toolErrorFormatter: set.toolErrorFormatter });
    expect(second.finalOutput).toBe("done");
    expect(fixture.ran).not.toContain("launch:boat");
    expect(busAsked).toEqual([]);
    expect(secondInput(model)).toMatch(/launch was denied: .*refused in the agent run/);
    expect(secondInput(model)).toContain(REFUSED_IN_RUN);
    expect(fixture.audit.records.slice(before)).toEqual([
      expect.objectContaining({
        tool: "launch",
        callId: "oa-ask-no",
        decision: "ask",
        outcome: "denied_by_policy",
      }),
    ]);
  });
});
