/**
 * @module policy/flow/context-condition
 * `when.context = { integrity = "untrusted" }` / `{ confidentiality = "private" }`: a rule condition on the
 * caller's context label, not on an argument (docs/injection.md). Compiled apart from the argument
 * conditions, so `context` is the one name a `when` table cannot use for an argument. A call made without a
 * session (a person's `toolgate call`, a program's own call) has a clean context: trusted and public.
 */
import type { Label } from "../../core/index.js";

/** A compiled `when.context`. */
export interface ContextCondition {
  readonly integrity?: Label["integrity"];
  readonly confidentiality?: Label["confidentiality"];
}

const VALUES: Readonly<Record<string, readonly string[]>> = {
  integrity: ["trusted", "untrusted"],
  confidentiality: ["public", "private"],
};

/**
 * Compiles `when.context`.
 * @throws Error naming the key or value that is wrong.
 */
export function compileContextCondition(table: Readonly<Record<string, unknown>>): ContextCondition {
  const out: { integrity?: Label["integrity"]; confidentiality?: Label["confidentiality"] } = {};
  for (const [key, value] of Object.entries(table)) {
    const allowed = VALUES[key];
    if (allowed === undefined || !Object.hasOwn(VALUES, key))
      throw new Error(`when.context: unknown key ${JSON.stringify(key)} (known: integrity, confidentiality)`);
    if (typeof value !== "string" || !allowed.includes(value))
      throw new Error(
        `when.context.${key} must be ${allowed.map((v) => JSON.stringify(v)).join(" or ")}, got ${JSON.stringify(value)}`,
      );
    (out as Record<string, string>)[key] = value;
  }
  return Object.freeze(out);
}

/** Whether the context label satisfies the condition (no label: a clean context). */
export function contextHolds(condition: ContextCondition, label: Label | undefined): boolean {
  const integrity = label?.integrity ?? "trusted";
  const confidentiality = label?.confidentiality ?? "public";
  if (condition.integrity !== undefined && condition.integrity !== integrity) return false;
  if (condition.confidentiality !== undefined && condition.confidentiality !== confidentiality) return false;
  return true;
}

/** The condition as written, for explain: `integrity = "untrusted"`. */
export function contextWanted(condition: ContextCondition): string {
  return Object.entries(condition)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(", ");
}
