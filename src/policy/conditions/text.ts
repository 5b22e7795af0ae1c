/**
 * @module policy/conditions/text
 * The `text` argument kind: arguments compared as plain strings (the kind of every argument a tool does not
 * declare otherwise). Operators: equals, oneOf, prefix, contains, glob, regex.
 */

import { compileGlob } from "../../utils/index.js";
import type { ArgKindPlugin, ConditionTest, OperatorCompiler } from "../types.js";
import { compileSafeRegex, scalarList, scalarText, stringList } from "./operands.js";

/** A text argument as the operators see it; `undefined` when the raw value has no text form. */
export type TextValue = string | undefined;

/** Strings stay strings; numbers and booleans become their text; anything else has no text form. */
function prepareText(raw: unknown): TextValue {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "boolean" || typeof raw === "bigint") return String(raw);
  return undefined;
}

/** True when `test` holds for any of `items`. A plain loop: evaluation allocates nothing per call. */
function any<T>(items: readonly T[], test: (item: T, value: string) => boolean): ConditionTest<TextValue> {
  if (items.length === 1) {
    const only = items[0]!;
    return (value) => typeof value === "string" && test(only, value);
  }
  return (value) => {
    if (typeof value !== "string") return false;
    for (let i = 0; i < items.length; i++) if (test(items[i]!, value)) return true;
    return false;
  };
}

const operators: Record<string, OperatorCompiler<TextValue>> = {
  equals(operand) {
    const want = scalarText(operand);
    return (value) => value === want;
  },
  oneOf(operand) {
    const set = new Set(scalarList(operand));
    return (value) => typeof value === "string" && set.has(value);
  },
  prefix: (operand) => any(stringList(operand), (prefix, value) => value.startsWith(prefix)),
  contains: (operand) => any(stringList(operand), (part, value) => value.includes(part)),
  glob: (operand) =>
    any(
      stringList(operand).map((g) => compileGlob(g)),
      (matcher, value) => matcher(value),
    ),
  regex: (operand) => any(stringList(operand).map(compileSafeRegex), (re, value) => re.test(value)),
};

/**
 * The built-in `text` plug-in. Always present; hosts add `path`, `command` and `url` plug-ins beside it.
 * @example textPlugin.operators.prefix!(["git "])("git status", "allow") // true
 */
export const textPlugin: ArgKindPlugin<TextValue> = Object.freeze({
  kind: "text",
  prepare: prepareText,
  operators: Object.freeze(operators),
});
