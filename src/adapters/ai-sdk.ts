/**
 * @module adapters/ai-sdk
 * toolgate's tools as a Vercel AI SDK `ToolSet` (`toolgate/ai-sdk`; `ai` is an optional peer dependency).
 * Every call runs through the gate's pipeline — validation, policy, audit, spans. A call the policy answers
 * `ask` uses the AI SDK's own tool approval (`needsApproval`: the SDK stops with a `tool-approval-request`;
 * the application answers with a `tool-approval-response`); an approved call then runs with a per-call
 * `confirm` that says yes (no second question), a refused one never reaches the tool and the set's
 * `prepareStep` writes the refusal to the gate's audit log. A call the policy denies, or that fails, reaches
 * the model as a tool error (a {@link ToolgateCallError}).
 */
import { jsonSchema, type ModelMessage, type PrepareStepFunction, type ToolSet, tool } from "ai";
import type { ToolCall } from "../core/index.js";
import * as gateCall from "./gate-call.js";
import { asArgs, offeredTools, policyAsks, ToolgateCallError } from "./gate-call.js";

export { ToolgateCallError };

/** What the adapter needs: a gate, or anything shaped like one. */
export type AiSdkTarget = gateCall.AdapterTarget;

export type AiSdkToolsOptions = gateCall.ScopeOption;

/** The tool set, and the step hook that audits refused approvals (pass both: `generateText({ ...set })`). */
export interface GateToolSet {
  tools: ToolSet;
  prepareStep: PrepareStepFunction;
}

/**
 * @example
 * const gate = await createToolgate({ roots: [process.cwd()] });
 * const set = aiSdkTools(gate);
 * const result = await generateText({ model, ...set, prompt: "Summarize README.md" });
 * // result.content may hold tool-approval-request parts: answer them with tool-approval-response messages.
 */
export function aiSdkTools(gate: AiSdkTarget, options: AiSdkToolsOptions = {}): GateToolSet {
  const scope = options.scope;
  /** Calls sent to the SDK's approval step, by call id: executing one means the application approved it. */
  const awaiting = new Map<string, ToolCall>();
  const tools: ToolSet = {};
  for (const t of offeredTools(gate, scope)) {
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (input, { toolCallId }) => {
        const call: ToolCall = { id: toolCallId, name: t.name, args: asArgs(input) };
        const ask = await policyAsks(gate, call, scope);
        if (ask) awaiting.set(toolCallId, call);
        return ask;
      },
      execute: async (input, { toolCallId, abortSignal }) => {
        const approved = awaiting.delete(toolCallId);
        const call: ToolCall = { id: toolCallId, name: t.name, args: asArgs(input) };
        return gateCall.runGateCall(gate, call, { scope, signal: abortSignal, approved });
      },
    });
  }
  // The SDK answers a refused approval itself (an `execution-denied` tool result, never `execute`); the next
  // step's messages carry it, so the refusal is audited there, once per call.
  const prepareStep: PrepareStepFunction = async ({ messages }) => {
    for (const id of deniedCallIds(messages)) {
      const call = awaiting.get(id);
      if (!call) continue;
      awaiting.delete(id);
      await gateCall.auditRefusal(gate, call, scope);
    }
    return undefined;
  };
  return { tools, prepareStep };
}

/** The ids of tool calls whose result is the SDK's `execution-denied`. */
function deniedCallIds(messages: readonly ModelMessage[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.output.type === "execution-denied") ids.push(part.toolCallId);
    }
  }
  return ids;
}
