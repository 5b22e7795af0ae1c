/**
 * @module policy/rule-keys
 * Skips the rules that cannot match a call, without changing which rules do. A plug-in may promise that a
 * condition holds only for values sharing a key with its operand (`ArgKindPlugin.operandKeys`/`valueKeys`:
 * for commands, the first word of a sub-command or a word in it; for paths, the first component of an
 * anchored glob or a relative prefix). Rules are bucketed by such a condition's
 * keys once per candidate list and tool shape; a call then looks at the rules no key can rule out (in file
 * order) plus those in its own keys' buckets — with 700 shell rules, a dozen instead of 700.
 * Soundness rests on the plug-in's promise; `rule-keys.test.ts` compares against the linear scan.
 */
import type { ArgKind, Decision } from "../core/index.js";
import type { CompiledRule, PreparedCall } from "./model.js";
import type { ArgKindPlugin } from "./types.js";

/** Rules sharing one keyed condition shape: argument, its kind at this tool, and the rules' decision. */
interface Bucket {
  readonly arg: string;
  readonly decision: Decision;
  readonly valueKeys: NonNullable<ArgKindPlugin["valueKeys"]>;
  /** Positions (in the rule list) of every rule in the bucket, for values with no keys to compare. */
  readonly members: number[];
  readonly byKey: Map<string, number[]>;
}

/** One ordered rule list, bucketed for one tool shape (its argument kinds). */
export class KeyedRules {
  readonly #rules: readonly CompiledRule[];
  /** Positions of rules no keyed condition confines (always tested). */
  readonly #always: number[] = [];
  readonly #buckets: Bucket[] = [];

  constructor(
    rules: readonly CompiledRule[],
    argKinds: Readonly<Record<string, ArgKind>> | undefined,
    plugins: readonly ArgKindPlugin[],
  ) {
    this.#rules = rules;
    const byKind = new Map(plugins.map((p) => [p.kind, p]));
    const buckets = new Map<string, Bucket>();
    rules.forEach((rule, position) => {
      for (const condition of rule.conditions) {
        const kind = argKinds?.[condition.arg] ?? "text";
        const keys = condition.keys[kind];
        const valueKeys = byKind.get(kind)?.valueKeys;
        // Keys count only where the test that will run is the one the keys describe.
        if (keys === undefined || valueKeys === undefined || condition.tests[kind] === undefined) continue;
        const id = `${condition.arg}\u0000${rule.decision}`;
        let bucket = buckets.get(id);
        if (bucket === undefined) {
          bucket = { arg: condition.arg, decision: rule.decision, valueKeys, members: [], byKey: new Map() };
          buckets.set(id, bucket);
          this.#buckets.push(bucket);
        }
        bucket.members.push(position);
        for (const key of keys) {
          const list = bucket.byKey.get(key);
          if (list === undefined) bucket.byKey.set(key, [position]);
          else list.push(position);
        }
        return;
      }
      this.#always.push(position);
    });
  }

  /**
   * The rules that may match `call`, in file order. `unprepared` is the engine's marker for an argument its
   * kind could not prepare (such a value is never given to a plug-in's `valueKeys`).
   */
  select(call: PreparedCall, unprepared: symbol): readonly CompiledRule[] {
    if (this.#buckets.length === 0) return this.#rules;
    const picked = this.#always.slice();
    for (const bucket of this.#buckets) {
      const value = call.args[bucket.arg];
      const keys =
        value === undefined || value === unprepared ? undefined : bucket.valueKeys(value, bucket.decision);
      if (keys === undefined) {
        for (const p of bucket.members) picked.push(p);
        continue;
      }
      for (const key of keys) {
        const list = bucket.byKey.get(key);
        if (list !== undefined) for (const p of list) picked.push(p);
      }
    }
    picked.sort((a, b) => a - b);
    const out: CompiledRule[] = [];
    let last = -1;
    for (const p of picked) {
      if (p === last) continue;
      out.push(this.#rules[p]!);
      last = p;
    }
    return out;
  }
}
