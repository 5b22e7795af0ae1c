/**
 * @module core/steps/build
 * Step 2: validate the arguments against the tool's schema (ajv, compiled on first use) and build the
 * invocation. Bad arguments come back as an `invalid_params` result naming each failing parameter; a tool
 * whose schema does not compile as `invalid_tool` (the validator says which, by kind).
 */
import { errorResult, ToolInputError } from "../errors.js";
import { dropStrictNulls } from "../schemas/strict-args.js";
import type { RiskLevel, Tool, ToolInvocation, ToolResult } from "../types.js";
import type { ParamValidator } from "../validate.js";

export interface Built {
  invocation: ToolInvocation;
  args: Record<string, unknown>;
  risk: RiskLevel;
}

export function buildInvocation(validator: ParamValidator, tool: Tool, rawArgs: unknown): Built | ToolResult {
  let args = rawArgs;
  if (typeof args === "string") {
    // Providers send arguments as a JSON string; accept it here so every entry point behaves the same.
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch (error) {
      return errorResult(
        "invalid_params",
        `arguments for ${tool.name} are not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  // Models held to strict mode send null for optional arguments they leave out; drop those nulls.
  const outcome = validator.validate(tool, dropStrictNulls(tool.parameters, args));
  if (!outcome.ok) return errorResult(outcome.type, outcome.message, { problems: outcome.problems });
  try {
    const invocation = tool.build(outcome.value);
    // The risk is read here, where a throwing tool becomes an error result rather than a crash.
    return { invocation, args: outcome.value, risk: invocation.riskFor() };
  } catch (error) {
    if (error instanceof ToolInputError)
      return errorResult(
        "invalid_params",
        `invalid arguments for ${tool.name}: ${error.problems.join("; ")}`,
        {
          problems: [...error.problems],
        },
      );
    return errorResult(
      "invalid_tool",
      `${tool.name} could not prepare the call: ${(error as Error).message}`,
    );
  }
}
