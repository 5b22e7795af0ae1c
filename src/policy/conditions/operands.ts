/**
 * @module policy/conditions/operands
 * Checks and compiles the operands a policy file gives to condition operators: string lists, scalars,
 * globs (picomatch, strict brackets) and regexes (refused when prone to catastrophic backtracking).
 * Shared by the argument-kind plug-ins so every kind words its operand errors the same way.
 */
import picomatch from "picomatch";
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

/** Options every policy glob is compiled with, unless a kind needs others. */
export const GLOB_OPTIONS: picomatch.PicomatchOptions = Object.freeze({ strictBrackets: true, dot: true });

/**
 * Compiles one glob; a malformed one (unbalanced brackets, braces or parentheses) is refused.
 * @throws Error `malformed glob "[abc": Missing closing: "]" ...`
 */
export function compileGlob(
  glob: string,
  options: picomatch.PicomatchOptions = GLOB_OPTIONS,
): (value: string) => boolean {
  if (glob === "") throw new Error("glob must not be empty");
  const key = options === GLOB_OPTIONS ? glob : `${glob}\0${JSON.stringify(options)}`;
  let re = compiledGlobs.get(key);
  if (re === undefined) {
    try {
      re = picomatch.makeRe(glob, options);
    } catch (error) {
      throw new Error(`malformed glob ${JSON.stringify(glob)}: ${(error as Error).message}`);
    }
    if (compiledGlobs.size >= GLOB_CACHE_SIZE) compiledGlobs.clear();
    compiledGlobs.set(key, re);
  }
  const compiled = re;
  return (value) => compiled.test(value);
}

// Policies repeat their globs (the built-in one gives the same secret-file list to three rules, and every
// kind that has `glob` compiles it), and a policy is built anew for each gate: ~100 compiles became ~17.
// The regexes have no `g` or `y` flag, so sharing one keeps no state between tests.
const GLOB_CACHE_SIZE = 2000;
const compiledGlobs = new Map<string, RegExp>();

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
