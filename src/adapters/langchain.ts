/**
 * @module adapters/langchain
 * toolgate's tools as LangChain.js tools (`toolgate/langchain`; `@langchain/core` is an optional peer
 * dependency). Each is a `DynamicStructuredTool` whose schema is the tool's JSON Schema and whose call runs
 * through the gate's pipeline — validation, policy, audit, spans. `@langchain/core` has no approval step of its
 * own (the human-in-the-loop interrupt lives in `@langchain/langgraph` and the `langchain` agents package, not
 * in core), so an `ask` is answered by the `confirm` given here, else by the gate's confirmer (its bus and
 * approval store). A refused, denied or failed call is a {@link ToolgateCallError}; invoked with a tool call
 * (as LangChain agents do), it comes back as a ToolMessage with `status: "error"` that the model reads.
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { ToolCall } from "../core/index.js";
import {
  type AdapterOptions,
  type AdapterTarget,
  asArgs,
  offeredTools,
  runGateCall,
  ToolgateCallError,
} from "./gate-call.js";

export { ToolgateCallError };

/** What the adapter needs: a gate, or anything shaped like one. */
export type LangChainTarget = AdapterTarget;

export type LangChainToolsOptions = AdapterOptions;

/**
 * @example
 * const tools = langchainTools(gate, { confirm: async ({ details }) => ({ approved: await askUser(details) }) });
 * const reply = await model.bindTools(tools).invoke("Read README.md");
 * for (const call of reply.tool_calls ?? []) messages.push(await byName[call.name].invoke(call));
 */
export function langchainTools(
  gate: LangChainTarget,
  options: LangChainToolsOptions = {},
): DynamicStructuredTool[] {
  const { scope, confirm } = options;
  return offeredTools(gate, scope).map(
    (t) =>
      new DynamicStructuredTool({
        name: t.name,
        description: t.description,
        schema: t.parameters as Record<string, unknown>,
        func: async (input: unknown, _run, config?: ToolRunnableConfig) => {
          const id = config?.toolCall?.id;
          const call: ToolCall = { name: t.name, args: asArgs(input), ...(id ? { id } : {}) };
          const message = (content: string, status: "success" | "error") =>
            new ToolMessage({ content, tool_call_id: id!, name: t.name, status });
          try {
            const text = await runGateCall(gate, call, { scope, signal: config?.signal, confirm });
            return id ? message(text, "success") : text;
          } catch (error) {
            if (id && error instanceof ToolgateCallError) return message(error.message, "error");
            throw error;
          }
        },
      }),
  );
}
