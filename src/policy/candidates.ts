/**
 * @module policy/candidates
 * Which rules can apply to a tool name, found fast: exact names through a map, globs tested once per name,
 * `*` rules appended. The ordered candidate list (tool-specific rules, then `*` rules) is memoised per name,
 * so evaluating a call only looks at the rules that name its tool.
 */
import type { ArgKind, ToolKind } from "../core/index.js";
import { compileToolPattern } from "../core/index.js";
import type { CompiledRule } from "./model.js";
import { KeyedRules } from "./rule-keys.js";
import type { ArgKindPlugin } from "./types.js";

/** The rules that can apply to one tool name, in evaluation order. */
export interface Candidates {
  /** Rules naming the tool exactly or by a glob other than `*`, in file order. */
  readonly specific: readonly CompiledRule[];
  /** `*` rules that do not also name the tool specifically, in file order. */
  readonly any: readonly CompiledRule[];
  /** Distinct argument names the candidates' conditions read (what the engine must prepare). */
  readonly args: readonly string[];
}

/** Candidates of one name and kind, bucketed by rule keys per tool shape (argument kinds), on demand. */
interface KindEntry {
  readonly candidates: Candidates;
  readonly keyed: WeakMap<object, KeyedCandidates>;
}

/** The two levels of a candidate list, each bucketed by rule keys (see `policy/rule-keys.ts`). */
export interface KeyedCandidates {
  readonly specific: KeyedRules;
  readonly any: KeyedRules;
}

/** The memo entry for one name: its candidates, and those narrowed to each tool kind, built on demand. */
interface NameEntry {
  readonly all: Candidates;
  readonly byKind: Map<ToolKind, KindEntry>;
}

/** Stands for "no declared argument kinds" as a WeakMap key. */
const NO_ARG_KINDS: Readonly<Record<string, ArgKind>> = Object.freeze({});

/** Drops the rules whose `kind` list excludes `kind`. */
function narrow(all: Candidates, kind: ToolKind): Candidates {
  const keep = (rule: CompiledRule) => rule.kinds === undefined || rule.kinds.includes(kind);
  return Object.freeze({
    specific: Object.freeze(all.specific.filter(keep)),
    any: Object.freeze(all.any.filter(keep)),
    args: all.args,
  });
}

/** Past this many distinct names the memo is dropped and rebuilt, so odd callers cannot grow it forever. */
const MEMO_LIMIT = 8192;

/** The per-name index over a policy's rules. Its memo is the only state; answers never change. */
export class RuleIndex {
  readonly #rules: readonly CompiledRule[];
  readonly #plugins: readonly ArgKindPlugin[];
  readonly #exact = new Map<string, number[]>();
  readonly #globs: { readonly position: number; readonly test: (name: string) => boolean }[] = [];
  readonly #any: number[] = [];
  readonly #memo = new Map<string, NameEntry>();

  constructor(rules: readonly CompiledRule[], plugins: readonly ArgKindPlugin[] = []) {
    this.#rules = rules;
    this.#plugins = plugins;
    rules.forEach((rule, position) => {
      for (const entry of rule.tools) {
        const pattern = compileToolPattern(entry);
        if (pattern.type === "any") this.#any.push(position);
        else if (pattern.type === "glob") this.#globs.push({ position, test: pattern.test });
        else {
          const list = this.#exact.get(pattern.name);
          if (list) list.push(position);
          else this.#exact.set(pattern.name, [position]);
        }
      }
    });
  }

  /** The candidate rules for `name`, memoised. */
  candidates(name: string): Candidates {
    return this.#entry(name).all;
  }

  /**
   * The candidate rules for `name` that can apply to a tool of `kind` (rules whose `kind` list excludes it
   * are left out, as they could never match), memoised. `args` is that of all candidates.
   */
  candidatesFor(name: string, kind: ToolKind): Candidates {
    return this.#kindEntry(name, kind).candidates;
  }

  /**
   * `candidatesFor(name, kind)` bucketed by rule keys for a tool with these argument kinds (memoised per
   * kinds object, which a registered tool keeps), so `select` gives only the rules a call may match.
   */
  keyedFor(
    name: string,
    kind: ToolKind,
    argKinds: Readonly<Record<string, ArgKind>> | undefined,
  ): KeyedCandidates {
    const entry = this.#kindEntry(name, kind);
    const shape = argKinds ?? NO_ARG_KINDS;
    let keyed = entry.keyed.get(shape);
    if (keyed === undefined) {
      const { specific, any } = entry.candidates;
      keyed = {
        specific: new KeyedRules(specific, argKinds, this.#plugins),
        any: new KeyedRules(any, argKinds, this.#plugins),
      };
      entry.keyed.set(shape, keyed);
    }
    return keyed;
  }

  #kindEntry(name: string, kind: ToolKind): KindEntry {
    const entry = this.#entry(name);
    let narrowed = entry.byKind.get(kind);
    if (narrowed === undefined) {
      narrowed = { candidates: narrow(entry.all, kind), keyed: new WeakMap() };
      entry.byKind.set(kind, narrowed);
    }
    return narrowed;
  }

  #entry(name: string): NameEntry {
    const hit = this.#memo.get(name);
    if (hit) return hit;
    if (this.#memo.size >= MEMO_LIMIT) this.#memo.clear();
    const entry: NameEntry = { all: this.#build(name), byKind: new Map() };
    this.#memo.set(name, entry);
    return entry;
  }

  #build(name: string): Candidates {
    const specific = new Set<number>(this.#exact.get(name));
    for (const glob of this.#globs) if (glob.test(name)) specific.add(glob.position);
    const any = this.#any.filter((position) => !specific.has(position));
    const byPosition = (a: number, b: number) => a - b;
    const specificRules = [...specific].sort(byPosition).map((p) => this.#rules[p]!);
    const anyRules = [...new Set(any)].sort(byPosition).map((p) => this.#rules[p]!);
    const args = new Set<string>();
    for (const rule of specificRules) for (const arg of rule.args) args.add(arg);
    for (const rule of anyRules) for (const arg of rule.args) args.add(arg);
    return Object.freeze({
      specific: Object.freeze(specificRules),
      any: Object.freeze(anyRules),
      args: Object.freeze([...args]),
    });
  }
}
