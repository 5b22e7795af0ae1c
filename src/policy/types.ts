/**
 * @module policy/types
 * The policy's plug-in points. Each argument kind (text, path, command, url) is a plug-in that prepares a raw
 * argument (IO allowed: realpath, parsing) and compiles the operators a rule may use on it into pure tests.
 * The engine knows nothing of paths, shells or URLs: it only calls these.
 */
import type { ArgKind, Decision } from "../core/index.js";

/**
 * What a condition test answers: `true` it holds, `false` it does not, `"ask"` it holds but the rule can at
 * most ask (a command with constructs a prefix rule cannot vouch for: redirections, substitutions, ...);
 * `{ ask: why }` the same, saying why (the policy decision's reason carries it).
 */
export type MatchResult = boolean | "ask" | AskBecause;

/** A condition that holds only as far as asking, and why (`sed script runs a command (e)`). */
export interface AskBecause {
  readonly ask: string;
}

/** What `prepare` may use besides the raw value. */
export interface PrepareContext {
  /** The host's allowed roots, canonical. */
  roots: readonly string[];
  /** All validated arguments of the call (e.g. shell's `cwd` for a `command`). */
  args: Readonly<Record<string, unknown>>;
}

/**
 * A compiled condition: tests a prepared value. `decision` is the decision of the rule being tested, so
 * multi-part values can be strict for allow/ask (every sub-command must match) and broad for deny (any).
 * Must be pure: no IO, no clock.
 */
export type ConditionTest<V> = Bivariant<(value: V, decision: Decision) => MatchResult>;

/**
 * A function type whose parameter is checked both ways (as a method's is), so a plug-in of any value type is
 * an `ArgKindPlugin` without a cast: the engine holds plug-ins of every kind together and only ever passes a
 * plug-in's tests the values its own `prepare` made. Without this, `plugins: [createCommandKind()]` fails to
 * type-check in a strict project.
 */
type Bivariant<F extends (...args: never[]) => unknown> = {
  method(...args: Parameters<F>): ReturnType<F>;
}["method"];

/** Compiles an operator's operand from the policy file; throws an Error whose message says what is wrong. */
export type OperatorCompiler<V> = (operand: unknown) => ConditionTest<V>;

/** One argument kind's semantics. */
export interface ArgKindPlugin<V = unknown> {
  readonly kind: ArgKind;
  /** Turns a raw argument into the value operators compare. Never throws: encode failures in the value. */
  prepare(raw: unknown, context: PrepareContext): Promise<V> | V;
  /** The operators this kind understands, by file-format name (`glob`, `prefix`, `host`, ...). */
  readonly operators: Readonly<Record<string, OperatorCompiler<V>>>;
  /**
   * The raw argument in the form the policy checked, when preparing rewrote it (a command with its brace
   * and glob expansions written out as quoted words), else undefined. The call then runs with this form,
   * so what runs is what was checked.
   */
  checkedForm?(value: V): unknown;
  /**
   * Why a default `allow` must not apply to this value (no rule vouched for it), or undefined when it may.
   * The command kind answers for commands its analysis cannot vouch for (substitutions, wrappers, ...), so
   * `default = "allow"` never runs them unasked.
   */
  defaultAllowBlocker?(value: V): string | undefined;
  /**
   * Index support (optional, both or neither): the keys a condition's operand confines matching values to.
   * A condition compiled from `operand` by `operator` may hold (true or ask) for a value only when
   * `valueKeys(value, decision)` shares a key with `operandKeys(operator, operand)`. `undefined` from
   * either means "no such promise", and the rule is always tested. The engine uses this to skip rules
   * that cannot match (`policy/rule-keys.ts`); it never changes which rules match.
   */
  operandKeys?(operator: string, operand: unknown): readonly string[] | undefined;
  valueKeys?(value: V, decision: Decision): readonly string[] | undefined;
}
