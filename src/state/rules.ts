/**
 * @module state/rules
 * What the stores accept, whatever backend keeps them: memory keys, values and metadata, todo text and
 * statuses. Each check returns why a value is refused (the message a person or model reads), or nothing.
 */
import { isPlainObject } from "../utils/index.js";
import type { StateMeta, TodoStatus } from "./backend.js";

/** Keys: 1–128 characters from this set (safe in file names, URLs and shell words). */
export const MEMORY_KEY_PATTERN = /^[A-Za-z0-9_.:/-]{1,128}$/;
/** The store's own value cap (the memory tool sets a much smaller one). */
export const DEFAULT_MAX_VALUE_BYTES = 8 * 1024 * 1024;
/** The largest `meta` of a memory value, as JSON in UTF-8 bytes. */
export const MAX_META_BYTES = 64 * 1024;
/** Every todo status, in display order. */
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];
/** Longest todo text, in characters. */
export const MAX_TODO_TEXT = 2_000;
/** Default cap on the number of todo items (the store refuses to grow past it). */
export const DEFAULT_MAX_TODOS = 1_000;

/** Why `key` is not a valid memory key, or `undefined` when it is. */
export function memoryKeyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return "memory key must be a string";
  if (key.length === 0 || key.length > 128) {
    return `memory key must be 1 to 128 characters long (got ${key.length})`;
  }
  if (!MEMORY_KEY_PATTERN.test(key)) {
    return `memory key ${JSON.stringify(key)} may contain only letters, digits and _ . : / -`;
  }
  return undefined;
}

/** Why `value` is not a storable value under a cap of `maxBytes`, or `undefined` when it is. */
export function memoryValueProblem(value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== "string") return "memory value must be a string";
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > maxBytes) return `memory value is ${bytes} bytes; the limit is ${maxBytes} bytes`;
  return undefined;
}

/** Why `meta` cannot be kept with a memory value (it must be a plain JSON object), or `undefined`. */
export function memoryMetaProblem(meta: unknown): string | undefined {
  if (!isPlainObject(meta) || !isJson(meta)) return "memory meta must be a plain JSON object";
  const bytes = Buffer.byteLength(JSON.stringify(meta), "utf8");
  if (bytes > MAX_META_BYTES)
    return `memory meta is ${bytes} bytes of JSON; the limit is ${MAX_META_BYTES} bytes`;
  return undefined;
}

/** Whether `value` is JSON that reads back equal: no undefined, functions, non-finite numbers or class instances. */
function isJson(value: unknown): value is StateMeta {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJson);
}

/** Why `text` is not valid todo text, or `undefined`. */
export function todoTextProblem(text: unknown): string | undefined {
  if (typeof text !== "string" || text.trim() === "") return "todo text must be a non-empty string";
  if (text.length > MAX_TODO_TEXT) {
    return `todo text is ${text.length} characters; the limit is ${MAX_TODO_TEXT}`;
  }
  return undefined;
}

/** Whether `value` is a todo status. */
export function isTodoStatus(value: unknown): value is TodoStatus {
  return typeof value === "string" && (TODO_STATUSES as readonly string[]).includes(value);
}
