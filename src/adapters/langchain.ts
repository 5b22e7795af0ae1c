/**
 * @module adapters/langchain
 * toolgate's tools as LangChain.js tools (`toolgate/langchain`; `@langchain/core` is an optional peer
 * dependency). Each is a `DynamicStructuredTool` whose schema is the tool's JSON Schema and whose call runs
 * through the gate's pipeline — validation, policy, audit, spans. LangChain's core has no approval step of its
 * own, so an `ask` goes to the gate's bus (whatever answers it: a terminal prompt, a UI); a refusal, a deny or a
 * failure comes back as a ToolMessage with `status: "error"` that the model reads.
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { CallResult, ExecuteOptions, Tool, ToolCall, ToolScope } from "../core/index.js";

/** What the adapter needs: a gate, or anything shaped like one. */
export interface LangChainTarget {
  registry: { list(): readonly Tool[] };
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
}

export interface LangChainToolsOptions {
  /** Only these tools are offered (and callable). */
  scope?: ToolScope;
}

/**
 * @example
 * const tools = langchainTools(gate);
 * const reply = await model.bindTools(tools).invoke("Read README.md");
 * for (const call of reply.tool_calls ?? []) messages.push(await byName[call.name].invoke(call));
 */
export function langchainTools(
  gate: LangChainTarget,
  options: LangChainToolsOptions = {},
): DynamicStructuredTool[] {
  const scope = options.scope;
  return gate.registry
    .list()
    .filter((t) => !scope || scope.tools.has(t.name))
    .map(
      (t) =>
        new DynamicStructuredTool({
          name: t.name,
          description: t.description,
          schema: t.parameters as Record<string, unknown>,
          func: async (input: unknown, _run, config?: ToolRunnableConfig) => {
            const id = config?.toolCall?.id;
            const call: ToolCall = {
              name: t.name,
              args: (input ?? {}) as Record<string, unknown>,
              ...(id ? { id } : {}),
            };
            const result = await gate.execute(call, {
              ...(config?.signal ? { signal: config.signal } : {}),
              ...(scope ? { scope } : {}),
            });
            if (!id) {
              if (!result.ok) throw new Error(result.llmContent);
              return result.llmContent;
            }
            return new ToolMessage({
              content: result.llmContent,
              tool_call_id: id,
              name: t.name,
              status: result.ok ? "success" : "error",
            });
          },
        }),
    );
}
