/**
 * @module adapters/gate-call
 * What the three framework adapters share, so they behave one way: how a call reaches the gate (with a
 * per-call `confirm` — never a listener on the gate's bus), how a refused or failed call is reported
 * (a {@link ToolgateCallError} carrying the gate's result; each adapter hands it to its framework's own error
 * form), and how a refusal given in a framework's approval step is written to the audit log.
 */
import type {
  CallResult,
  CheckResult,
  Confirm,
  ExecuteOptions,
  Tool,
  ToolCall,
  ToolScope,
} from "../core/index.js";

/** What an adapter needs: a gate, or anything shaped like one. */
export interface AdapterTarget {
  registry: { list(): readonly Tool[] };
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  check(call: ToolCall, options?: { scope?: ToolScope }): Promise<CheckResult>;
}

/** Options every adapter takes. */
export interface AdapterOptions {
  /** Only these tools are offered (and callable). */
  scope?: ToolScope;
  /**
   * Answers `ask` for calls the framework has no approval step for (LangChain). Without it, the gate's own
   * confirmer answers (its bus and approval store).
   */
  confirm?: Confirm;
}

/**
 * A call the pipeline refused or that failed. The message is the gate's text for the model; `result` is the
 * whole result. Every adapter reports a failed call with it, in its framework's error form.
 */
export class ToolgateCallError extends Error {
  constructor(readonly result: CallResult) {
    super(result.llmContent);
    this.name = "ToolgateCallError";
  }
}

/** The reason recorded, and shown to the model, for a call the person refused in a framework's approval step. */
export const REFUSED_IN_RUN = "refused in the agent run's approval step";

/** The options of an adapter whose framework has its own approval step: the scope only. */
export type ScopeOption = Pick<AdapterOptions, "scope">;

/** The tools an adapter offers: the gate's, narrowed to the scope. */
export function offeredTools(gate: AdapterTarget, scope: ToolScope | undefined): readonly Tool[] {
  return gate.registry.list().filter((t) => !scope || scope.tools.has(t.name));
}

/** True when the policy answers this call `ask` (the framework's approval step should stop it first). */
export async function policyAsks(gate: AdapterTarget, call: ToolCall, scope?: ToolScope): Promise<boolean> {
  const checked = await gate.check(call, scope ? { scope } : {});
  return checked.ok && checked.decision.decision === "ask";
}

/** How a call is run: the person already approved it in the framework (no second question), or `confirm`. */
export interface RunHow {
  scope?: ToolScope | undefined;
  signal?: AbortSignal | undefined;
  /** The framework's approval step approved this call. */
  approved?: boolean;
  confirm?: Confirm | undefined;
}

/** Runs a call through the gate's pipeline: its text for the model, or a {@link ToolgateCallError}. */
export async function runGateCall(gate: AdapterTarget, call: ToolCall, how: RunHow): Promise<string> {
  const confirm: Confirm | undefined = how.approved ? async () => ({ approved: true }) : how.confirm;
  const result = await gate.execute(call, {
    ...(how.scope ? { scope: how.scope } : {}),
    ...(how.signal ? { signal: how.signal } : {}),
    ...(confirm ? { confirm } : {}),
  });
  if (!result.ok) throw new ToolgateCallError(result);
  return result.llmContent;
}

/**
 * Writes a refusal given in the framework's approval step to the audit log, by running the call through the
 * pipeline with a `confirm` that says no. The policy is asked again first: only a call it still asks about is
 * answered "no" (nothing here may run a tool). Returns the gate's refusal text for the model.
 */
export async function auditRefusal(gate: AdapterTarget, call: ToolCall, scope?: ToolScope): Promise<string> {
  if (!(await policyAsks(gate, call, scope))) return `${call.name} was not run: ${REFUSED_IN_RUN}`;
  const result = await gate.execute(call, {
    ...(scope ? { scope } : {}),
    confirm: async () => ({ approved: false, reason: REFUSED_IN_RUN }),
  });
  return result.llmContent;
}

/** The arguments as the framework parsed them (the gate's validation reports anything that is not an object). */
export function asArgs(input: unknown): Record<string, unknown> {
  return (input ?? {}) as Record<string, unknown>;
}
