/**
 * @module policy/engine
 * The `Decider` the pipeline calls: prepares only the arguments some candidate rule reads (through their
 * kinds' plug-ins, which may do IO such as realpath), then asks the pure `evaluate`. A plug-in that throws
 * while preparing fails the call closed (deny), never open.
 */
import {
  type ArgKind,
  type Decider,
  type DecisionRequest,
  describeLabel,
  type PolicyDecision,
} from "../core/index.js";
import { pluginList } from "./compile.js";
import { evaluate, UNPREPARED } from "./evaluate.js";
import { createRecorder, explainTrace } from "./explain.js";
import { guardCall } from "./flow/guard.js";
import type { FlowKnowledge } from "./flow/knowledge.js";
import type { CompiledPolicy, PolicyRecorder, PreparedCall } from "./model.js";
import { kindGap } from "./tools-check.js";
import type { ArgKindPlugin } from "./types.js";

/** Whether the policy, or one of its layers, allows by default (then what cannot be vouched for is noted). */
function defaultAllows(policy: CompiledPolicy): boolean {
  return policy.layers ? policy.layers.some(defaultAllows) : policy.defaultDecision === "allow";
}

/** How a `PolicyEngine` is built. */
export interface PolicyEngineOptions {
  policy: CompiledPolicy;
  /** Plug-ins for preparing path, command and url arguments. Default: the ones the policy was compiled with. */
  plugins?: readonly ArgKindPlugin[];
  /** The host's allowed roots (canonical), given to `prepare`. Never taken from tool arguments. */
  roots: readonly string[];
  /**
   * What the gate knows of information flow, and whether the built-in guard applies (docs/injection.md).
   * Absent: `when.context` rules still decide, and no guard applies.
   */
  flow?: { knowledge: FlowKnowledge; guard: boolean };
  /**
   * Keep each decision's explain trace in it (`PolicyDecision.explain`: the matched rules, their conditions
   * and the outcome, display-safe) — for the audit log, which keeps no arguments. Default false.
   */
  explain?: boolean;
}

/**
 * Decides allow / ask / deny for calls, with a compiled policy.
 * @example
 * const engine = new PolicyEngine({ policy: await loadPolicyFile(".toolgate/policy.toml", { plugins }), plugins, roots });
 * const decision = await engine.decide({ tool, invocation, args, risk: invocation.riskFor() });
 */
export class PolicyEngine implements Decider {
  #policy: CompiledPolicy;
  readonly roots: readonly string[];
  readonly #plugins: ReadonlyMap<ArgKind, ArgKindPlugin>;
  readonly #guard: FlowKnowledge | undefined;
  /** The host gave flow knowledge with the guard turned off (said in an explain trace). */
  readonly #guardOff: boolean;
  readonly #explain: boolean;

  constructor(options: PolicyEngineOptions) {
    this.#policy = options.policy;
    this.roots = Object.freeze([...options.roots]);
    const plugins = options.plugins ? pluginList(options.plugins) : options.policy.plugins;
    this.#plugins = new Map(plugins.map((p) => [p.kind, p]));
    this.#guard = options.flow?.guard ? options.flow.knowledge : undefined;
    this.#guardOff = options.flow !== undefined && !options.flow.guard;
    this.#explain = options.explain ?? false;
  }

  /** The policy in force. */
  get policy(): CompiledPolicy {
    return this.#policy;
  }

  /**
   * Puts `policy` in force for the decisions that start from now on (one already deciding keeps the policy
   * it started with): the policy file changed under a running session ("approve always" added a rule).
   */
  use(policy: CompiledPolicy): void {
    this.#policy = policy;
  }

  /** Decides one call; with a recorder, explain events are appended to it. */
  async decide(request: DecisionRequest, recorder?: PolicyRecorder): Promise<PolicyDecision> {
    const { tool, args: raw } = request;
    const policy = this.#policy;
    const needed = policy.index.candidates(tool.name).args;
    const args: Record<string, unknown> = {};
    for (const arg of needed) {
      const value = Object.hasOwn(raw, arg) ? raw[arg] : undefined;
      if (value === undefined) continue;
      const kind = tool.argKinds?.[arg] ?? "text";
      const plugin = this.#plugins.get(kind);
      // A rule reads an argument of a kind the policy or the engine has no plug-in for (a policy loaded
      // alone, without `tools` to refuse it at load): its conditions could never be tested, so the call is
      // refused, saying which plug-in is missing, rather than the rule never matching (or always holding).
      if (plugin === undefined || !policy.plugins.some((p) => p.kind === kind)) {
        return {
          decision: "deny",
          risk: "high",
          reason: `the policy cannot decide this call: ${kindGap(arg, tool.name, kind)}; denied (fail closed)`,
          matched: [],
        };
      }
      try {
        const prepared = await plugin.prepare(value, { roots: this.roots, args: raw });
        // A value the kind has no form for (text that is an array) must not pass for a missing argument.
        args[arg] = prepared === undefined ? UNPREPARED : prepared;
      } catch (error) {
        return {
          decision: "deny",
          risk: "high",
          reason: `argument "${arg}" (${kind}) could not be prepared for the policy: ${(error as Error).message}; denied (fail closed)`,
          matched: [],
        };
      }
    }
    const blockers = defaultAllows(policy) ? await this.blockers(tool, raw, args) : [];
    const call: PreparedCall = {
      ...(blockers.length > 0 ? { blockers } : {}),
      tool: {
        name: tool.name,
        kind: tool.kind,
        risk: tool.risk,
        ...(tool.argKinds ? { argKinds: tool.argKinds } : {}),
      },
      args,
      risk: request.risk,
      context: request.context?.label,
    };
    // Explaining for the audit: our own log of the events, kept in the decision as its trace.
    const log = recorder === undefined && this.#explain ? createRecorder() : undefined;
    const events = recorder ?? log;
    let decision = evaluate(policy, call, events);
    // Only a context that read something untrusted costs anything more (a clean one skips the guard); an
    // explain trace asked for also says what the labels would do on a clean one.
    if (this.#guard !== undefined) {
      if (recorder !== undefined || request.context?.label.integrity === "untrusted")
        decision = guardCall(decision, request, this.#guard, events);
    } else if (recorder !== undefined && this.#guardOff)
      recorder.record({
        op: "guard",
        context: request.context ? describeLabel(request.context.label) : "trusted, public",
        outcome: `${decision.decision} (unchanged: the injection guard is off, [labels] guard = false)`,
      });
    if (log) decision = { ...decision, explain: explainTrace(log.events) };
    return decision.decision === "deny" ? decision : this.withCheckedForms(decision, tool, args);
  }

  /**
   * Adds the arguments that must run in the form the policy checked (a command's expansions written out):
   * the pipeline runs the call with them, and the reason says so.
   */
  private withCheckedForms(
    decision: PolicyDecision,
    tool: DecisionRequest["tool"],
    prepared: Readonly<Record<string, unknown>>,
  ): PolicyDecision {
    let checked: Record<string, unknown> | undefined;
    for (const [arg, value] of Object.entries(prepared)) {
      const form = this.#plugins.get(tool.argKinds?.[arg] ?? "text")?.checkedForm?.(value);
      if (form !== undefined) checked = { ...checked, [arg]: form };
    }
    if (checked === undefined) return decision;
    const names = Object.keys(checked)
      .map((a) => `"${a}"`)
      .join(", ");
    const reason = `${decision.reason}; ${names} runs as checked, its expansions written out`;
    return { ...decision, reason, checkedArgs: checked };
  }

  /** What keeps a default `allow` from this call: arguments whose kind cannot vouch for them (prepared once). */
  private async blockers(
    tool: DecisionRequest["tool"],
    raw: Readonly<Record<string, unknown>>,
    prepared: Record<string, unknown>,
  ): Promise<string[]> {
    const out: string[] = [];
    for (const [arg, kind] of Object.entries(tool.argKinds ?? {})) {
      const plugin = this.#plugins.get(kind);
      if (!plugin?.defaultAllowBlocker || !Object.hasOwn(raw, arg) || raw[arg] === undefined) continue;
      try {
        prepared[arg] ??= await plugin.prepare(raw[arg], { roots: this.roots, args: raw });
        const why = plugin.defaultAllowBlocker(prepared[arg]);
        if (why) out.push(`${arg}: ${why}`);
      } catch (error) {
        out.push(`${arg}: could not be checked (${(error as Error).message})`);
      }
    }
    return out;
  }
}
