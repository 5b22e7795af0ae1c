/**
 * @module core/steps/shape
 * Step 6: shorten the output to the limits (with an indicator of what was omitted).
 */
import { type TruncationLimits, truncateOutput } from "../truncate.js";
import type { Tool, ToolResult } from "../types.js";

export function shapeResult(
  tool: Tool | undefined,
  result: ToolResult,
  limits: TruncationLimits,
): ToolResult {
  const mode = tool?.outputMode ?? "head";
  const llm = truncateOutput(result.llmContent, { ...limits, mode });
  if (!llm.truncated && result.returnDisplay.length <= limits.maxChars) return result;
  const display = truncateOutput(result.returnDisplay, { ...limits, mode });
  return { ...result, llmContent: llm.text, returnDisplay: display.text };
}
