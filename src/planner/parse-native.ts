/**
 * @module planner/parse-native
 * Native tool calls as providers return them: OpenAI (`function.arguments` is a JSON string), Ollama
 * (`function.arguments` is an object), Anthropic `tool_use` blocks (`input`), Gemini `functionCall` (`args`).
 * Passed on as given; only the arguments are normalized to an object.
 */
import { callsFromValue } from "./call-shape.js";
import type { PlannedCall, SkippedCall } from "./types.js";

/** Native calls, and the ones whose arguments could not be read. */
export interface NativeCalls {
  calls: PlannedCall[];
  problems: SkippedCall[];
}

/**
 * Normalizes a provider's native tool calls. Anthropic content arrays may be passed whole: text blocks
 * are ignored.
 * @example parseNativeCalls([{ id: "c1", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } }])
 */
export function parseNativeCalls(toolCalls: readonly unknown[]): NativeCalls {
  const out: NativeCalls = { calls: [], problems: [] };
  for (const item of toolCalls) {
    if (typeof item === "object" && item !== null && (item as { type?: unknown }).type === "text") continue;
    const found = callsFromValue(item);
    if (!found) {
      out.problems.push({
        name: "(unknown)",
        reason: "a native tool call without a usable name was ignored",
      });
      continue;
    }
    out.calls.push(...found.calls);
    out.problems.push(...found.problems);
  }
  return out;
}
