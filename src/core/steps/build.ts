/**
 * @module core/steps/build
 * Step 2: validate the arguments against the tool's schema (ajv, compiled on first use) and build the
 * invocation. Bad arguments come back as an `invalid_params` result naming each failing parameter; a tool
 * whose schema does not compile as `invalid_tool` (the validator says which, by kind).
 */
import { errorResult, ToolInputError } from "../errors.js";
import { dropStrictNulls } from "../schemas/strict-args.js";
import type { PolicyDecision, RiskLevel, Tool, ToolInvocation, ToolResult } from "../types.js";
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

/**
 * What runs is what was checked: when the policy checked some arguments in another form (`checkedArgs`: a
 * command with its expansions written out), the invocation is built again from them, so the confirmation
 * shows and the tool runs that form. Arguments that no longer validate are an error result.
 */
export function asChecked(
  validator: ParamValidator,
  tool: Tool,
  built: Built,
  decision: Pick<PolicyDecision, "checkedArgs">,
): Built | ToolResult {
  if (decision.checkedArgs === undefined) return built;
  const rebuilt = buildInvocation(validator, tool, { ...built.args, ...decision.checkedArgs });
  if ("invocation" in rebuilt) return rebuilt;
  return errorResult(
    "denied_by_policy",
    `${tool.name} was denied: its arguments as the policy checked them could not be prepared (${rebuilt.error?.message})`,
  );
}

/** A result that opens with the arguments the call ran with, when the policy rewrote them. */
export function withCheckedNote(
  result: ToolResult,
  decision: Pick<PolicyDecision, "checkedArgs">,
): ToolResult {
  if (decision.checkedArgs === undefined) return result;
  const shown = Object.entries(decision.checkedArgs)
    .map(([arg, value]) => `${arg}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("; ");
  const note = `[ran as the policy checked it — ${shown}]`;
  return {
    ...result,
    llmContent: `${note}\n${result.llmContent}`,
    returnDisplay: `${note}\n${result.returnDisplay}`,
  };
}
