/**
 * @module adapters/openai-agents
 * toolgate's tools as OpenAI Agents JS function tools (`toolgate/openai-agents`; `@openai/agents` is an
 * optional peer dependency). Every call runs through the gate's pipeline — validation, policy, audit, spans.
 * A call the policy answers `ask` uses the SDK's own human-in-the-loop step: `needsApproval` makes the run stop
 * with an interruption, the application answers with `state.approve(item)` or `state.reject(item)` and runs the
 * state again. The SDK's record of that answer (`runContext.isToolApproved`) is what lets an approved call run
 * without a second question, so it holds across a serialized `RunState`. A refused call never reaches the
 * tool; the set's `toolErrorFormatter` (passed to the run) writes the refusal to the gate's audit log and gives
 * the model the gate's refusal text. A call the policy denies returns the gate's refusal as the tool's output.
 */
import { type FunctionTool, type ToolErrorFormatter, tool } from "@openai/agents";
import type { CallResult, CheckResult, ExecuteOptions, Tool, ToolCall, ToolScope } from "../core/index.js";

/** The SDK's type for a plain (non-strict) JSON Schema, which it passes to the model unchanged. */
type JsonSchemaParameters = Extract<
  NonNullable<Parameters<typeof tool>[0]["parameters"]>,
  { additionalProperties: true }
>;

/** What the adapter needs: a gate, or anything shaped like one. */
export interface OpenAiAgentsTarget {
  registry: { list(): readonly Tool[] };
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  check(call: ToolCall, options?: { scope?: ToolScope }): Promise<CheckResult>;
}

export interface OpenAiAgentsToolsOptions {
  /** Only these tools are offered (and callable). */
  scope?: ToolScope;
}

/** The tools, and the formatter that audits refused approvals (pass it to `run` or the `Runner`). */
export interface GateAgentTools {
  tools: FunctionTool[];
  toolErrorFormatter: ToolErrorFormatter;
}

/** The reason recorded, and shown to the model, for a call the person refused through the SDK. */
export const REFUSED_IN_RUN = "refused in the agent run's approval step";

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
  const scoped = scope ? { scope } : {};
  /** Calls sent to the SDK's approval step, by call id: the refusal is audited with these arguments. */
  const awaiting = new Map<string, ToolCall>();
  const names = new Set<string>();

  const tools: FunctionTool[] = [];
  for (const t of gate.registry.list()) {
    if (scope && !scope.tools.has(t.name)) continue;
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
          const checked = await gate.check(call, scoped);
          const ask = checked.ok && checked.decision.decision === "ask";
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
          const result = await gate.execute(call, {
            ...scoped,
            ...(details?.signal ? { signal: details.signal } : {}),
            ...(approved ? { confirm: async () => ({ approved: true }) } : {}),
          });
          return result.llmContent;
        },
      }) as unknown as FunctionTool,
    );
  }

  const toolErrorFormatter: ToolErrorFormatter = async ({ kind, toolName, callId }) => {
    if (kind !== "approval_rejected" || !names.has(toolName)) return undefined;
    const call = awaiting.get(callId);
    if (!call) return undefined;
    awaiting.delete(callId);
    // The refusal goes through the pipeline, so it is audited like any refused call. The policy is asked
    // again first: only a call it still asks about is answered "no" (nothing here may run a tool).
    const checked = await gate.check(call, scoped);
    if (!checked.ok || checked.decision.decision !== "ask")
      return `${toolName} was not run: ${REFUSED_IN_RUN}`;
    const result = await gate.execute(call, {
      ...scoped,
      confirm: async () => ({ approved: false, reason: REFUSED_IN_RUN }),
    });
    return result.llmContent;
  };

  return { tools, toolErrorFormatter };
}

/** The arguments as the SDK parsed them (the gate's validation reports anything that is not an object). */
function asArgs(input: unknown): Record<string, unknown> {
  return (input ?? {}) as Record<string, unknown>;
}
