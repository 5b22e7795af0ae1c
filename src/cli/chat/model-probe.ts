/**
 * @module cli/chat/model-probe
 * The model probe `chat` runs before its first prompt: is the server there, does it have the model, how
 * large is the context window. The result is a line of the banner; a missing model offers the command
 * that fetches it.
 */
import { type ChatModel, ModelError } from "../../llm/index.js";

/** How long the start-up probe waits for the server (a silent server must not hold the banner). */
export const PROBE_TIMEOUT_MS = 10_000;

export interface ModelStatus {
  /** The banner line, without a trailing newline. */
  line: string;
  /** Why the model cannot be used, when it cannot. */
  error?: ModelError;
  contextWindow?: number;
  /** False when the model cannot call tools natively. */
  tools?: false;
}

/**
 * Probes `model` and describes the result in one line.
 * @example const { line, error } = await probeModel(model);
 */
export async function probeModel(model: ChatModel, timeoutMs = PROBE_TIMEOUT_MS): Promise<ModelStatus> {
  const result = await model.probe(AbortSignal.timeout(timeoutMs));
  if (result.ok) {
    const window = result.contextWindow ? ` (context window ${result.contextWindow} tokens)` : "";
    const text = result.tools === false ? "; no native tool calls: calls are read from its text" : "";
    return {
      line: `model: ready${window}${text}`,
      ...(result.contextWindow ? { contextWindow: result.contextWindow } : {}),
      ...(result.tools === false ? { tools: false as const } : {}),
    };
  }
  // The check's own time limit shows up as a cancellation: say what it means.
  const error =
    result.error.kind === "cancelled"
      ? new ModelError(
          "timeout",
          `the model server at ${model.baseUrl} did not answer within ${timeoutMs / 1000} s`,
        )
      : result.error;
  return { line: `model: ${error.message}`, error };
}
