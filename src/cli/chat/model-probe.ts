/**
 * @module cli/chat/model-probe
 * The model probe `chat` runs before its first prompt: is the server there, does it have the model, and
 * which context window the session keeps to — the configured one, or what the server states — with where
 * that figure came from. The result is a line of the banner; a missing model offers the command that
 * fetches it.
 */
import {
  type ChatModel,
  type ContextWindow,
  type LlmSettings,
  ModelError,
  resolveContextWindow,
} from "../../llm/index.js";

/** How long the start-up probe waits for the server (a silent server must not hold the banner). */
export const PROBE_TIMEOUT_MS = 10_000;

export interface ModelStatus {
  /** The banner line, without a trailing newline. */
  line: string;
  /** Why the model cannot be used, when it cannot. */
  error?: ModelError;
  /** The window the session keeps to, and where it came from. */
  window?: ContextWindow;
  /** False when the model cannot call tools natively. */
  tools?: false;
}

/**
 * Probes `model` and describes the result in one line.
 * @example const { line, error, window } = await probeModel(model, settings);
 */
export async function probeModel(
  model: ChatModel,
  settings: Pick<LlmSettings, "contextWindow" | "provider">,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ModelStatus> {
  const result = await model.probe(AbortSignal.timeout(timeoutMs));
  if (result.ok) {
    const window = resolveContextWindow(settings, result);
    const said = window
      ? ` (context window ${window.tokens} tokens, from ${window.source})`
      : " (context window unknown: set [llm] context_window to keep the conversation inside it)";
    const text = result.tools === false ? "; no native tool calls: calls are read from its text" : "";
    return {
      line: `model: ready${said}${text}`,
      ...(window ? { window } : {}),
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
  // Without an answer the configured window still holds.
  const window = resolveContextWindow(settings, undefined);
  return { line: `model: ${error.message}`, error, ...(window ? { window } : {}) };
}
