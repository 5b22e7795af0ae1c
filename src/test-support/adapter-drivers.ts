/**
 * @module test-support/adapter-drivers
 * One driver per framework adapter, each running one model turn through the framework's own machinery: a
 * scripted model asks for one tool call, the framework runs it through the adapter, and — when the framework
 * stops for approval — the driver answers in the framework's own way and runs again. The driver returns what
 * the model was sent after the call, so the adapter contract (src/adapters/adapter-contract.test.ts) can hold
 * every adapter to the same outcomes.
 */
import { AIMessageChunk, type ToolMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  Usage,
} from "@openai/agents";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { aiSdkTools } from "../adapters/ai-sdk.js";
import { langchainTools } from "../adapters/langchain.js";
import { openaiAgentsTools } from "../adapters/openai-agents.js";
import type { Toolgate } from "../toolgate.js";

/** One model turn: the model calls `tool` with `{ what }` under call id `id`. */
export interface Turn {
  tool: string;
  what: string;
  id: string;
  /** The person's answer if the call needs approval; a driver fails when asked without one. */
  approve?: boolean;
}

/** What came of a turn. */
export interface TurnSeen {
  /** What the model was sent after the call (the tool's output, the refusal or the error), as text. */
  seen: string;
  /** The framework stopped the run for approval. */
  stoppedForApproval: boolean;
}

export interface AdapterDriver {
  name: string;
  turn(gate: Toolgate, turn: Turn): Promise<TurnSeen>;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const finish = (unified: "tool-calls" | "stop") => ({ unified, raw: undefined });

function aiSdkModel(steps: Array<{ call?: Turn; text?: string }>) {
  return new MockLanguageModelV3({
    doGenerate: steps.map(({ call, text }) => ({
      content: call
        ? [
            {
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.tool,
              input: JSON.stringify({ what: call.what }),
            },
          ]
        : [{ type: "text" as const, text: text ?? "done" }],
      finishReason: finish(call ? "tool-calls" : "stop"),
      usage,
      warnings: [],
    })),
  });
}

/** The AI SDK's `generateText`, its mock model, and its tool-approval request/response messages. */
export const aiSdkDriver: AdapterDriver = {
  name: "ai-sdk",
  async turn(gate, t) {
    const set = aiSdkTools(gate);
    const model = aiSdkModel([{ call: t }, { text: "done" }]);
    const first = await generateText({ model, ...set, prompt: t.tool, stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    if (!request)
      return { seen: JSON.stringify(model.doGenerateCalls.at(-1)?.prompt), stoppedForApproval: false };
    if (t.approve === undefined) throw new Error(`${t.tool} was stopped for approval with no answer`);
    const messages: ModelMessage[] = [
      { role: "user", content: t.tool },
      ...first.response.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: t.approve }],
      },
    ];
    const next = aiSdkModel([{ text: "after approval" }]);
    await generateText({ model: next, ...set, messages });
    return { seen: JSON.stringify(next.doGenerateCalls[0]?.prompt), stoppedForApproval: true };
  },
};

/**
 * LangChain's test chat model bound to the tools; the bound tool runs the call as LangChain agents do
 * (`tool.invoke(toolCall)` → ToolMessage). `@langchain/core` has no approval step: the answer is the
 * adapter's per-call `confirm`.
 */
export const langchainDriver: AdapterDriver = {
  name: "langchain",
  async turn(gate, t) {
    let stoppedForApproval = false;
    const tools = langchainTools(gate, {
      confirm: async () => {
        stoppedForApproval = true;
        if (t.approve === undefined) throw new Error(`${t.tool} was stopped for approval with no answer`);
        return t.approve ? { approved: true } : { approved: false, reason: "not now" };
      },
    });
    const model = new FakeStreamingChatModel({
      chunks: [
        new AIMessageChunk({
          content: "",
          tool_call_chunks: [
            {
              id: t.id,
              name: t.tool,
              args: JSON.stringify({ what: t.what }),
              index: 0,
              type: "tool_call_chunk",
            },
          ],
        }),
      ],
    });
    const reply = await model.bindTools(tools).invoke(`please ${t.tool}`);
    const call = reply.tool_calls?.[0];
    const bound = tools.find((x) => x.name === call?.name);
    if (!call || !bound) throw new Error(`the model did not call ${t.tool}`);
    const message = (await bound.invoke({ ...call, type: "tool_call" })) as ToolMessage;
    return { seen: JSON.stringify({ content: message.content, status: message.status }), stoppedForApproval };
  },
};

/** A model written to the OpenAI Agents `Model` interface (the SDK ships no test model): one call, then "done". */
class OneCallModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly t: Turn) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const { id: callId, tool: name, what } = this.t;
    const output: ModelResponse["output"] =
      this.requests.length === 1
        ? [{ type: "function_call", callId, name, arguments: JSON.stringify({ what }), status: "completed" }]
        : [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "done" }],
            },
          ];
    return { usage: new Usage(), output };
  }
  // biome-ignore lint/correctness/useYield: the runner here never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used: the tests run without streaming");
  }
}

/** The OpenAI Agents `Runner`; an approval is its interruption, answered on a serialized-and-restored state. */
export const openaiAgentsDriver: AdapterDriver = {
  name: "openai-agents",
  async turn(gate, t) {
    const { tools, toolErrorFormatter } = openaiAgentsTools(gate);
    const runner = new Runner({ tracingDisabled: true });
    const model = new OneCallModel(t);
    const agent = new Agent({ name: "helper", instructions: "use the tools", model, tools });
    const first = await runner.run(agent, t.tool, { toolErrorFormatter });
    const [item] = first.interruptions;
    if (item) {
      if (t.approve === undefined) throw new Error(`${t.tool} was stopped for approval with no answer`);
      // The application keeps the state elsewhere and answers later.
      const state = await RunState.fromString(agent, first.state.toString());
      const pending = state.getInterruptions()[0]!;
      if (t.approve) state.approve(pending);
      else state.reject(pending);
      await runner.run(agent, state, { toolErrorFormatter });
    }
    return { seen: JSON.stringify(model.requests[1]?.input ?? []), stoppedForApproval: item !== undefined };
  },
};

export const ADAPTER_DRIVERS: readonly AdapterDriver[] = [aiSdkDriver, langchainDriver, openaiAgentsDriver];
