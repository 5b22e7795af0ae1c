/**
 * @module policy/model
 * The policy's data: rules as written (after validation), rules as compiled (tool patterns indexed,
 * conditions turned into tests), the prepared call `evaluate` reads, and the explain events it can record.
 * Types only, apart from nothing: behaviour lives in compile.ts, evaluate.ts and explain.ts.
 */
import type { ArgKind, Decision, Label, RiskLevel, RuleRef, SandboxGrant, ToolKind } from "../core/index.js";
import type { RuleIndex } from "./candidates.js";
import type { ContextCondition } from "./flow/context-condition.js";
import type { ArgKindPlugin, ConditionTest, MatchResult } from "./types.js";

/** An example call a rule must (`match`) or must not (`not_match`) match, checked at load. */
export interface ExampleSpec {
  /** Tool name; default: the rule's first exact tool name. */
  tool?: string;
  /** Tool kind (for rules with `kind`); default: the known tool's kind, else `other`. */
  kind?: ToolKind;
  /** Raw arguments, prepared through the argument kinds' plug-ins like a real call's. */
  args: Record<string, unknown>;
}

/** One rule as written, validated (file-format names, arrays normalised). */
export interface RuleSpec {
  /** Exact names, globs, or `*`. */
  tool: string[];
  decision: Decision;
  /** Argument name → operator → operand. */
  when?: Record<string, Record<string, unknown>>;
  risk?: RiskLevel;
  message?: string;
  /** Extension: the rule applies only to tools of these kinds. */
  kind?: ToolKind[];
  /** Extension: a stable name; the rule's id becomes `<file>#<name>` instead of `<file>#<n>`. */
  name?: string;
  match?: ExampleSpec[];
  not_match?: ExampleSpec[];
  /** Extension: matching shell calls may leave the sandbox this far (`network`, or `off` for no sandbox). */
  sandbox?: SandboxGrant;
}

/** A whole policy as written, validated. */
export interface PolicySpec {
  default: Decision;
  rules: RuleSpec[];
}

/** One operator on one argument, compiled by every plug-in that understands the operator. */
export interface CompiledCondition {
  readonly arg: string;
  readonly operator: string;
  /** The test for each argument kind whose plug-in supports the operator. */
  readonly tests: Readonly<Partial<Record<ArgKind, ConditionTest<unknown>>>>;
  /** Per kind, the index keys a value must share for the test to hold (`ArgKindPlugin.operandKeys`). */
  readonly keys: Readonly<Partial<Record<ArgKind, readonly string[]>>>;
}

/** One rule, ready to evaluate. Frozen. */
export interface CompiledRule {
  readonly ref: RuleRef;
  /** 1-based line of the rule in its file, when known. */
  readonly line?: number;
  readonly tools: readonly string[];
  readonly decision: Decision;
  readonly risk?: RiskLevel;
  readonly message?: string;
  readonly sandbox?: SandboxGrant;
  readonly kinds?: readonly ToolKind[];
  readonly conditions: readonly CompiledCondition[];
  /** `when.context`: the context label the rule needs (docs/injection.md). */
  readonly context: ContextCondition | undefined;
  /** The distinct argument names the conditions read. */
  readonly args: readonly string[];
  /** `tool "shell", decision allow`: how reasons and errors name the rule. */
  readonly label: string;
  /** The one-line reason when this rule decides with its own decision (built once). */
  readonly reason: string;
  /** The rule as written (to re-validate, extend or print). */
  readonly spec: Readonly<RuleSpec>;
}

/** A compiled policy. Immutable: extending one returns a new one (see `extendPolicy`). */
export interface CompiledPolicy {
  /** Where the rules came from (a file path, `builtin`, ...). */
  readonly source: string;
  readonly defaultDecision: Decision;
  readonly rules: readonly CompiledRule[];
  /** The plug-ins the conditions were compiled with (text first). */
  readonly plugins: readonly ArgKindPlugin[];
  /** Rules by tool name; candidate lists are memoised per name. */
  readonly index: RuleIndex;
  /**
   * Set on a layered policy (an untrusted workspace policy over a trusted base, `stricterOnly`): each layer
   * decides on its own and the strictest answer wins, so no layer can loosen another. `rules` then lists
   * every layer's rules (for listing, lint and tool checks), `defaultDecision` the strictest default.
   */
  readonly layers?: readonly CompiledPolicy[];
}

/** What `evaluate` knows of the tool. */
export interface PolicyToolInfo {
  readonly name: string;
  readonly kind: ToolKind;
  readonly risk?: RiskLevel;
  /** Kinds of arguments that are not plain text. */
  readonly argKinds?: Readonly<Record<string, ArgKind>>;
}

/** A call ready for the pure evaluator: arguments already prepared by their kinds' plug-ins. */
export interface PreparedCall {
  readonly tool: PolicyToolInfo;
  /** Prepared values by argument name; a missing argument is absent (its conditions fail). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The call's risk as the tool computes it. */
  readonly risk: RiskLevel;
  /** Why a default `allow` must not apply to this call (see `ArgKindPlugin.defaultAllowBlocker`). */
  readonly blockers?: readonly string[];
  /**
   * The caller's context label (absent or undefined: no session, a clean context). The engine always sets
   * the key, so every prepared call has one shape (a cheaper decide step).
   */
  readonly context?: Label | undefined;
}

/** What a condition answered, for the explain trace. */
export type ConditionOutcome = MatchResult | "missing" | "unsupported";

/** One explain event. Built only when a recorder is given. */
export type PolicyEvent =
  | { readonly op: "consider"; readonly rule: string; readonly level: "tool" | "any" }
  | { readonly op: "skip-kind"; readonly rule: string; readonly kind: ToolKind }
  | {
      readonly op: "condition";
      readonly rule: string;
      readonly arg: string;
      readonly operator: string;
      readonly argKind: ArgKind;
      readonly outcome: ConditionOutcome;
    }
  | { readonly op: "context"; readonly rule: string; readonly want: string; readonly held: boolean }
  | { readonly op: "guard"; readonly context: string; readonly sink?: string; readonly outcome: string }
  | { readonly op: "match"; readonly rule: string; readonly decision: Decision }
  | { readonly op: "no-match"; readonly rule: string }
  | { readonly op: "choose"; readonly rule: string; readonly decision: Decision; readonly why: string }
  | { readonly op: "default"; readonly decision: Decision }
  | { readonly op: "layer"; readonly source: string; readonly role: "base" | "tightening" }
  | { readonly op: "combine"; readonly decision: Decision; readonly source: string };

/** Receives explain events (see `createRecorder`). */
export interface PolicyRecorder {
  record(event: PolicyEvent): void;
}
