/**
 * @module core/define-tool
 * `defineTool` turns a plain declaration (name, schema, kind, risk, describe, run) into a {@link Tool}.
 * Built-in tools and host tools use it; tools with unusual needs can implement `Tool` directly.
 */
import { callDetails } from "./confirmation.js";
import { resultFromThrown, ToolInputError } from "./errors.js";
import type { ContextView } from "./flow-session.js";
import type { LabelDeclaration } from "./labels.js";
import type {
  ArgKind,
  ConfirmationDetails,
  ExecutionContext,
  JsonSchema,
  OutputCallback,
  Recall,
  RiskLevel,
  SandboxGrant,
  SandboxRequest,
  StructuredReader,
  Tool,
  ToolInvocation,
  ToolKind,
  ToolResult,
  ToolScope,
} from "./types.js";
import { ParamValidator } from "./validate.js";

/** What `run` receives besides the parameters. */
export interface RunContext {
  signal: AbortSignal;
  updateOutput?: OutputCallback;
  /** The caller's scope, when the pipeline was given one. */
  scope?: ToolScope;
  /** How far the call may leave the sandbox (granted by the policy or approved by a person). */
  sandbox?: SandboxGrant;
  /** The caller's context label and trusted hosts, when the call came with a session (docs/injection.md). */
  context?: ContextView;
  /** A tool-less, schema-bound model call, when the caller has a model (the quarantined reader's). */
  reader?: StructuredReader;
  /** An earlier tool result still in the caller's context, by call id (the quarantined reader's by-reference mode). */
  recall?: Recall;
}

/** What a confirmation is built with besides the parameters. */
export interface ConfirmationContext {
  /** How far the call will leave the sandbox if approved. */
  sandbox?: SandboxGrant;
}

/** A tool's declaration. Everything but `run` is used before the call executes. */
export interface ToolSpec<P> {
  name: string;
  displayName?: string;
  description: string;
  parameters: JsonSchema;
  kind: ToolKind;
  risk: RiskLevel;
  argKinds?: Record<string, ArgKind>;
  outputMode?: "head" | "head-tail";
  source?: string;
  /**
   * The label of the tool's results (docs/injection.md): `{ integrity, confidentiality }`, or a function of
   * the parameters and the result. Default: untrusted and private — declare what the tool really returns.
   */
  label?: LabelDeclaration;
  /** Whether a call can send data out of the machine. Default: true for kinds but read, search and think. */
  sendsOut?: boolean;
  /** Validation the schema cannot express; return a message to refuse the call (`invalid_params`). */
  validate?(params: P): string | undefined;
  /** One-line summary of a call. Default: the display name. */
  describe?(params: P): string;
  /** Paths / URLs a call affects. Default: none. */
  locations?(params: P): string[];
  /** Raises the risk for some arguments (e.g. `rm -rf` in shell). Default: `risk`. */
  riskFor?(params: P): RiskLevel;
  /** Extra confirmation details (a diff, the command). Called only when a person is asked. */
  confirmation?(
    params: P,
    signal: AbortSignal,
    context: ConfirmationContext,
  ): Promise<Partial<ConfirmationDetails>> | Partial<ConfirmationDetails>;
  /** What a call asks beyond the sandbox (the shell's `sandbox` argument). Default: nothing. */
  sandboxRequest?(params: P): SandboxRequest | undefined;
  /**
   * Refuses what a call targets before anyone is asked about it, by throwing a `ToolFailure` — the checks `run`
   * makes first that depend on nothing but the arguments and the host (a path outside the workspace). The
   * pipeline calls it once the policy has not denied the call; `toolgate policy check` too. Default: none.
   */
  precheck?(params: P, signal: AbortSignal): Promise<void>;
  run(params: P, context: RunContext): Promise<ToolResult>;
}

/**
 * The validator `build` checks parameters with: the pipeline's own (ajv, the same options; the built-in tools'
 * precompiled), so a declaration's hooks and `run` never see parameters that do not match its schema, whoever
 * calls `build` — the pipeline (which has validated them already), an adapter, a test or a host.
 */
const declaredValidator = new ParamValidator();

/**
 * Declares a tool. Its `build` validates the parameters against `parameters` (schema defaults applied to a
 * copy) and throws {@link ToolInputError} (`invalid_params`) for ones that do not match, before any hook runs.
 * @example
 * const echo = defineTool<{ text: string }>({
 *   name: "echo", description: "Echoes text", kind: "think", risk: "low",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   run: async ({ text }) => okResult(text),
 * });
 */
export function defineTool<P = Record<string, unknown>>(spec: ToolSpec<P>): Tool<P> {
  const { name } = spec;
  const displayName = spec.displayName ?? name;
  const tool: Tool<P> = {
    name,
    displayName,
    description: spec.description,
    parameters: spec.parameters,
    kind: spec.kind,
    risk: spec.risk,
    ...(spec.argKinds ? { argKinds: spec.argKinds } : {}),
    ...(spec.outputMode ? { outputMode: spec.outputMode } : {}),
    ...(spec.label ? { label: spec.label as LabelDeclaration } : {}),
    ...(spec.sendsOut === undefined ? {} : { sendsOut: spec.sendsOut }),
    source: spec.source ?? "builtin",
    build(input: P): ToolInvocation<P> {
      const checked = declaredValidator.validate(tool as Tool, input);
      if (!checked.ok) {
        // A schema that does not compile is the tool's fault, not the caller's (the pipeline says invalid_tool).
        if (checked.type === "invalid_tool") throw new Error(checked.message);
        throw new ToolInputError(checked.problems.join("; "), checked.problems);
      }
      const params = checked.value as P;
      const problem = spec.validate?.(params);
      if (problem) throw new ToolInputError(problem);
      const describe = () => (spec.describe ? spec.describe(params) : displayName);
      const locations = () => (spec.locations ? spec.locations(params) : []);
      const risk = () => (spec.riskFor ? spec.riskFor(params) : spec.risk);
      const invocation: ToolInvocation<P> = {
        params,
        describe,
        locations,
        riskFor: risk,
        ...(spec.sandboxRequest ? { sandboxRequest: () => spec.sandboxRequest?.(params) } : {}),
        ...(spec.precheck ? { precheck: (signal: AbortSignal) => spec.precheck!(params, signal) } : {}),
        async confirmation(signal: AbortSignal, context: ConfirmationContext = {}) {
          if (risk() === "low" && !spec.confirmation) return false;
          const extra = spec.confirmation ? await spec.confirmation(params, signal, context) : {};
          return { ...callDetails(tool, invocation), ...extra };
        },
        async run(signal: AbortSignal, updateOutput?: OutputCallback, context?: ExecutionContext) {
          const runContext: RunContext = { signal };
          if (updateOutput) runContext.updateOutput = updateOutput;
          if (context?.scope) runContext.scope = context.scope;
          if (context?.sandbox) runContext.sandbox = context.sandbox;
          if (context?.context) runContext.context = context.context;
          if (context?.reader) runContext.reader = context.reader;
          if (context?.recall) runContext.recall = context.recall;
          try {
            return await spec.run(params, runContext);
          } catch (error) {
            return resultFromThrown(error, name, signal);
          }
        },
      };
      return invocation;
    },
  };
  return tool;
}
