/**
 * @module adapters/openai-agents
 * toolgate's tools as OpenAI Agents JS function tools (`toolgate/openai-agents`; `@openai/agents` is an
 * optional peer dependency). Every call runs through the gate's pipeline — validation, policy, audit, spans.
 * A call the policy answers `ask` uses the SDK's own human-in-the-loop step: `needsApproval` makes the run stop
 * with an interruption, the application answers with `state.approve(item)` or `state.reject(item)` and runs the
 * state again. The SDK's record of that answer (`runContext.isToolApproved`) is what lets an approved call run
 * without a second question, so it holds across a serialized `RunState`. A refused call never reaches the
 * tool; the set's `toolErrorFormatter` (passed to the run) writes the refusal to the gate's audit log and gives
 * the model the gate's refusal text. A call the policy denies, or that fails, is the tool's error (a
 * `ToolgateCallError`), whose text — the gate's — the tool's `errorFunction` gives the model.
 */
import { type FunctionTool, type ToolErrorFormatter, tool } from "@openai/agents";
import type { ToolCall } from "../core/index.js";
import {
  type AdapterTarget,
  asArgs,
  auditRefusal,
  offeredTools,
  policyAsks,
  REFUSED_IN_RUN,
  runGateCall,
  type ScopeOption,
  ToolgateCallError,
} from "./gate-call.js";

export { REFUSED_IN_RUN, ToolgateCallError };

/** The SDK's type for a plain (non-strict) JSON Schema, which it passes to the model unchanged. */
type JsonSchemaParameters = Extract<
  NonNullable<Parameters<typeof tool>[0]["parameters"]>,
  { additionalProperties: true }
>;

/** What the adapter needs: a gate, or anything shaped like one. */
export type OpenAiAgentsTarget = AdapterTarget;

export type OpenAiAgentsToolsOptions = ScopeOption;

/** The tools, and the formatter that audits refused approvals (pass it to `run` or the `Runner`). */
export interface GateAgentTools {
  tools: FunctionTool[];
  toolErrorFormatter: ToolErrorFormatter;
}

/**
 * @example
 * const { tools, toolErrorFormatter } = openaiAgentsTools(gate);
 * const agent = new Agent({ name: "helper", tools });
 * let result = await run(agent, "Summarize README.md", { toolErrorFormatter });
 * for (const item of result.interruptions) result.state.approve(item); // or state.reject(item)
 * result = await run(agent, result.state, { toolErrorFormatter });
 */
export function openaiAgentsTools(
  gate: OpenAiAgentsTarget,
  options: OpenAiAgentsToolsOptions = {},
): GateAgentTools {
  const scope = options.scope;
  /** Calls sent to the SDK's approval step, by call id: the refusal is audited with these arguments. */
  const awaiting = new Map<string, ToolCall>();
  const names = new Set<string>();

  const tools: FunctionTool[] = [];
  for (const t of offeredTools(gate, scope)) {
    names.add(t.name);
    tools.push(
      tool({
        name: t.name,
        description: t.description,
        // The gate validates against the tool's own schema; the SDK only parses the JSON.
        parameters: t.parameters as JsonSchemaParameters,
        strict: false,
        needsApproval: async (_context, input, callId) => {
          const call: ToolCall = { name: t.name, args: asArgs(input), ...(callId ? { id: callId } : {}) };
          const ask = await policyAsks(gate, call, scope);
          if (ask && callId) awaiting.set(callId, call);
          return ask;
        },
        execute: async (input, runContext, details) => {
          const id = details?.toolCall?.callId;
          const call: ToolCall = { name: t.name, args: asArgs(input), ...(id ? { id } : {}) };
          if (id) awaiting.delete(id);
          // The SDK records the person's answer; an approved call is not asked a second time.
          const approved =
            id !== undefined && runContext?.isToolApproved({ toolName: t.name, callId: id }) === true;
          return runGateCall(gate, call, { scope, signal: details?.signal, approved });
        },
        // A refused or failed call: the model reads the gate's text (the SDK's default hides it).
        errorFunction: (_context, error) =>
          error instanceof ToolgateCallError ? error.message : `${t.name} failed: ${String(error)}`,
      }) as unknown as FunctionTool,
    );
  }

  const toolErrorFormatter: ToolErrorFormatter = async ({ kind, toolName, callId }) => {
    if (kind !== "approval_rejected" || !names.has(toolName)) return undefined;
    const call = awaiting.get(callId);
    if (!call) return undefined;
    awaiting.delete(callId);
    return auditRefusal(gate, call, scope);
  };

  return { tools, toolErrorFormatter };
}
