/**
 * @module adapters/ai-sdk
 * toolgate's tools as a Vercel AI SDK `ToolSet` (`toolgate/ai-sdk`; `ai` is an optional peer dependency).
 * Every call runs through the gate's pipeline — validation, policy, audit, spans. A call the policy answers
 * `ask` uses the AI SDK's own tool approval (`needsApproval`: the SDK stops with a `tool-approval-request`;
 * the application answers with a `tool-approval-response`); an approved call then runs without a second
 * question, a refused one never reaches the tool. A call the policy denies reaches the model as a tool error.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { jsonSchema, type ToolSet, tool } from "ai";
import type { ConfirmationListener } from "../bus/index.js";
import type { CallResult, CheckResult, ExecuteOptions, Tool, ToolCall, ToolScope } from "../core/index.js";

/** What the adapter needs: a gate, or anything shaped like one. */
export interface AiSdkTarget {
  registry: { list(): readonly Tool[] };
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  check(call: ToolCall, options?: { scope?: ToolScope }): Promise<CheckResult>;
  bus: { onConfirmation(listener: ConfirmationListener): () => void };
}

export interface AiSdkToolsOptions {
  /** Only these tools are offered (and callable). */
  scope?: ToolScope;
}

/** The tool set, and a function that stops its approval listener on the gate's bus. */
export interface GateToolSet {
  tools: ToolSet;
  close(): void;
}

/** Thrown into the AI SDK for a call the pipeline refused or that failed: the model reads the message. */
export class ToolgateCallError extends Error {
  constructor(readonly result: CallResult) {
    super(result.llmContent);
    this.name = "ToolgateCallError";
  }
}

/**
 * @example
 * const gate = await createToolgate({ roots: [process.cwd()] });
 * const { tools } = aiSdkTools(gate);
 * const result = await generateText({ model, tools, prompt: "Summarize README.md" });
 * // result.content may hold tool-approval-request parts: answer them with tool-approval-response messages.
 */
export function aiSdkTools(gate: AiSdkTarget, options: AiSdkToolsOptions = {}): GateToolSet {
  const scope = options.scope;
  /** Calls for which the SDK was asked to get approval: executing them means the application approved. */
  const awaitingApproval = new Set<string>();
  const running = new AsyncLocalStorage<{ approvedBySdk: boolean }>();
  const stop = gate.bus.onConfirmation(() => {
    const ctx = running.getStore();
    // Only our calls, and only those the AI SDK's approval flow already answered; others go to the bus.
    if (!ctx?.approvedBySdk) return undefined;
    return Promise.resolve({ approved: true });
  });
  const tools: ToolSet = {};
  for (const t of gate.registry.list()) {
    if (scope && !scope.tools.has(t.name)) continue;
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (input, { toolCallId }) => {
        const checked = await gate.check(
          { id: toolCallId, name: t.name, args: input ?? {} },
          scope ? { scope } : {},
        );
        const ask = checked.ok && checked.decision.decision === "ask";
        if (ask) awaitingApproval.add(toolCallId);
        return ask;
      },
      execute: async (input, { toolCallId, abortSignal }) => {
        const approvedBySdk = awaitingApproval.delete(toolCallId);
        const call: ToolCall = { id: toolCallId, name: t.name, args: input ?? {} };
        const result = await running.run({ approvedBySdk }, () =>
          gate.execute(call, {
            ...(abortSignal ? { signal: abortSignal } : {}),
            ...(scope ? { scope } : {}),
          }),
        );
        if (!result.ok) throw new ToolgateCallError(result);
        return result.llmContent;
      },
    });
  }
  return { tools, close: stop };
}
