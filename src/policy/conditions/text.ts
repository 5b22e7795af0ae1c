/**
 * @module policy/conditions/text
 * The `text` argument kind: arguments compared as plain strings (the kind of every argument a tool does not
 * declare otherwise). Operators: equals, oneOf, prefix, contains, glob, regex.
 */
import type { ArgKindPlugin, ConditionTest, OperatorCompiler } from "../types.js";
import { compileGlob, compileSafeRegex, scalarList, scalarText, stringList } from "./operands.js";

/** A text argument as the operators see it; `undefined` when the raw value has no text form. */
export type TextValue = string | undefined;

/** Strings stay strings; numbers and booleans become their text; anything else has no text form. */
function prepareText(raw: unknown): TextValue {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "boolean" || typeof raw === "bigint") return String(raw);
  return undefined;
}

/** Wraps a string test so a value without text form never holds. */
function onText(test: (value: string) => boolean): ConditionTest<TextValue> {
  return (value) => (typeof value === "string" ? test(value) : false);
}

const operators: Record<string, OperatorCompiler<TextValue>> = {
  equals(operand) {
    const want = scalarText(operand);
    return onText((value) => value === want);
  },
  oneOf(operand) {
    const set = new Set(scalarList(operand));
    return onText((value) => set.has(value));
  },
  prefix(operand) {
    const prefixes = stringList(operand);
    return onText((value) => prefixes.some((p) => value.startsWith(p)));
  },
  contains(operand) {
    const parts = stringList(operand);
    return onText((value) => parts.some((p) => value.includes(p)));
  },
  glob(operand) {
    const matchers = stringList(operand).map((g) => compileGlob(g));
    return onText((value) => matchers.some((m) => m(value)));
  },
  regex(operand) {
    const res = stringList(operand).map(compileSafeRegex);
    return onText((value) => res.some((re) => re.test(value)));
  },
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
