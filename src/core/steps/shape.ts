/**
 * @module core/steps/shape
 * Step 6: the post-tool hooks (when the gate has any), then shorten the output to the limits (with an
 * indicator of what was omitted). Post-tool hooks that throw withhold the output: they fail closed.
 */
import { type TruncationLimits, truncateOutput } from "../truncate.js";
import type { HookReport, PostTool, Tool, ToolResult } from "../types.js";

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

/** Runs the post-tool hooks on a result. A hook runner that throws withholds the output from the model. */
export async function postToolResult(
  postTool: PostTool,
  request: Parameters<PostTool>[0],
): Promise<{ result: ToolResult; hooks?: HookReport[] }> {
  try {
    const { hooks, ...result } = await postTool(request);
    return hooks ? { result, hooks } : { result };
  } catch (error) {
    const message = `${request.tool.name}'s output was withheld: the post-tool hooks failed (${(error as Error).message})`;
    return {
      result: { ...request.result, llmContent: message, error: { type: "denied_by_policy", message } },
    };
  }
}
