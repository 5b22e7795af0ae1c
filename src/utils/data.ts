/**
 * @module utils/data
 * Small checks and transforms of plain data (what JSON, TOML and YAML parse to), written once for every
 * folder: the plain-object test, deep freezing, and JSON with sorted keys.
 */

/**
 * True for a plain key-value object: not null, not an array, not a Date (TOML date-times parse to Dates).
 * @example isPlainObject({ a: 1 }) // true; isPlainObject([1]) // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Freezes a value and everything in it, in place, and returns it. Already frozen parts are not walked again
 * (so shared frozen pieces cost nothing and cycles end).
 * @example const rules = deepFreeze([{ tool: "read_file" }]);
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * JSON with object keys sorted (code-unit order), so `{a,b}` and `{b,a}` give the same text. `undefined`
 * (as a value or an object property) is written as `null`.
 * @example canonicalJson({ b: 1, a: [true] }) // '{"a":[true],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
}
