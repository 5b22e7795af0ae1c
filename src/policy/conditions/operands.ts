/**
 * @module policy/conditions/operands
 * Checks and compiles the operands a policy file gives to condition operators: string lists, scalars,
 * and regexes (refused when prone to catastrophic backtracking).
 * Shared by the argument-kind plug-ins so every kind words its operand errors the same way.
 */
import safeRegex from "safe-regex2";

/** A JSON-ish type name for messages: `string`, `number`, `array`, `table`, ... */
export function typeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "object") return value instanceof Date ? "date" : "table";
  return typeof value;
}

/**
 * A string or a non-empty array of strings, as an array.
 * @throws Error `expects a string or an array of strings, got number`
 */
export function stringList(operand: unknown): string[] {
  if (typeof operand === "string") return [operand];
  if (Array.isArray(operand) && operand.length > 0 && operand.every((x) => typeof x === "string")) {
    return operand as string[];
  }
  if (Array.isArray(operand) && operand.length === 0) throw new Error("expects at least one value, got []");
  throw new Error(`expects a string or an array of strings, got ${typeName(operand)}`);
}

/** A string, number or boolean operand, as the string a text value is compared with. */
export function scalarText(operand: unknown): string {
  if (typeof operand === "string" || typeof operand === "number" || typeof operand === "boolean") {
    return String(operand);
  }
  throw new Error(`expects a string, number or boolean, got ${typeName(operand)}`);
}

/** A non-empty array of scalars (or one scalar), as strings. */
export function scalarList(operand: unknown): string[] {
  if (Array.isArray(operand)) {
    if (operand.length === 0) throw new Error("expects at least one value, got []");
    return operand.map((x) => {
      if (typeof x === "string" || typeof x === "number" || typeof x === "boolean") return String(x);
      throw new Error(
        `expects an array of strings, numbers or booleans, got an array holding ${typeName(x)}`,
      );
    });
  }
  return [scalarText(operand)];
}

/**
 * Compiles one regex from a policy file. Refuses bad syntax and patterns that can backtrack
 * catastrophically (nested quantifiers such as `(a+)+$`), since the input is a model's argument.
 */
export function compileSafeRegex(source: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(source);
  } catch (error) {
    throw new Error(`invalid regex ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
  if (!safeRegex(re)) {
    throw new Error(
      `regex ${JSON.stringify(source)} is prone to catastrophic backtracking (nested or overlapping quantifiers); simplify it`,
    );
  }
  return re;
}
