/**
 * @module core/steps/run
 * Step 5: execute the invocation. Whatever the tool does — throw, return garbage, ignore the abort — the
 * caller gets a well-formed ToolResult.
 */
import { errorResult, resultFromThrown } from "../errors.js";
import type { ExecutionContext, OutputCallback, Tool, ToolInvocation, ToolResult } from "../types.js";

export async function runInvocation(
  tool: Tool,
  invocation: ToolInvocation,
  signal: AbortSignal,
  onOutput?: OutputCallback,
  context: ExecutionContext = {},
): Promise<ToolResult> {
  if (signal.aborted) return errorResult("cancelled", `${tool.name} was cancelled before it started`);
  let result: ToolResult;
  try {
    result = await invocation.run(signal, onOutput, context);
  } catch (error) {
    return resultFromThrown(error, tool.name, signal);
  }
  if (!result || typeof result.llmContent !== "string") {
    return errorResult("internal_error", `${tool.name} returned a malformed result`);
  }
  if (typeof result.returnDisplay !== "string") result.returnDisplay = result.llmContent;
  if (signal.aborted && !result.error) return errorResult("cancelled", `${tool.name} was cancelled`);
  return result;
}
