/**
 * @module planner/call-shape
 * Recognizes a tool call in a parsed JSON value, whatever dialect the model or provider used:
 * `{name, arguments|args|parameters|input}`, `{tool|action, …}`, OpenAI `{function: {name, arguments}}`,
 * Anthropic `tool_use`, Gemini `functionCall`, wrappers such as `{tool_calls: […]}`, and arrays of these.
 */
import { TOOL_NAME_PATTERN } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";
import { parseJsonLenient } from "./json-scan.js";
import type { PlannedCall, SkippedCall } from "./types.js";

const NAME_KEYS = ["name", "tool", "tool_name", "function", "action", "recipient_name"] as const;
const ARG_KEYS = [
  "arguments",
  "args",
  "parameters",
  "params",
  "input",
  "tool_input",
  "action_input",
] as const;
const WRAPPER_KEYS = ["tool_calls", "tool_uses", "calls", "function_calls", "actions"] as const;
/** Name keys unambiguous enough that the other keys may be the arguments themselves. */
const FLAT_NAME_KEYS: ReadonlySet<string> = new Set(["tool", "tool_name"]);
/** Keys a call may carry besides name and arguments without making it something else. */
const BOOKKEEPING_KEYS = new Set(["id", "type", "index", "call_id"]);

/** Calls found in a value, and calls that were recognizably calls but unusable. */
export interface CallsFromValue {
  calls: PlannedCall[];
  problems: SkippedCall[];
}

/** `functions.jira_fetch` (OpenAI multi-tool wrappers) → `jira_fetch`; invalid names → undefined. */
function cleanName(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const name = raw.trim().replace(/^functions\./, "");
  return TOOL_NAME_PATTERN.test(name) ? name : undefined;
}

/** Arguments as an object: objects as given, JSON strings parsed, absent → `{}`; else an error message. */
export function normalizeArgs(raw: unknown): { args: Record<string, unknown> } | { error: string } {
  if (raw === undefined || raw === null) return { args: {} };
  if (isPlainObject(raw)) return { args: raw };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { args: {} };
    const parsed = parseJsonLenient(raw);
    if (!parsed) return { error: "arguments are not valid JSON" };
    if (parsed.value === null) return { args: {} };
    if (isPlainObject(parsed.value)) return { args: parsed.value };
    return { error: "arguments are not a JSON object" };
  }
  return { error: "arguments are not a JSON object" };
}

/** One object → a call, a problem, or `undefined` when it is not a call at all. */
function callFromObject(obj: Record<string, unknown>): PlannedCall | SkippedCall | undefined {
  if (isPlainObject(obj.function)) return callFromObject(obj.function);
  if (isPlainObject(obj.functionCall)) return callFromObject(obj.functionCall);
  const nameKey = NAME_KEYS.find((key) => typeof obj[key] === "string");
  if (!nameKey) return undefined;
  const name = cleanName(obj[nameKey]);
  if (!name) return undefined;
  const argKey = ARG_KEYS.find((key) => key in obj);
  if (!argKey && FLAT_NAME_KEYS.has(nameKey)) {
    // `{"tool": "web_fetch", "url": "…"}`: small models often inline the arguments beside the tool name.
    const args = Object.fromEntries(
      Object.entries(obj).filter(([key]) => key !== nameKey && !BOOKKEEPING_KEYS.has(key)),
    );
    return { name, args };
  }
  // Without an arguments key, only a bare `{"name": …}` is a call; `{"name": "Ann", "age": 3}` is data.
  if (!argKey && !Object.keys(obj).every((key) => key === nameKey || BOOKKEEPING_KEYS.has(key)))
    return undefined;
  const args = normalizeArgs(argKey ? obj[argKey] : undefined);
  if ("error" in args) return { name, reason: `${args.error}` };
  return { name, args: args.args };
}

/**
 * The calls in a parsed JSON value, or `undefined` when the value holds no call-shaped object at all.
 * @example callsFromValue({ name: "grep", arguments: '{"pattern":"x"}' }) // { calls: [{ name: "grep", args: { pattern: "x" } }], problems: [] }
 */
export function callsFromValue(value: unknown): CallsFromValue | undefined {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const result: CallsFromValue = { calls: [], problems: [] };
  let recognized = false;
  for (const item of items) {
    if (!isPlainObject(item)) continue;
    const wrapperKey = WRAPPER_KEYS.find((key) => Array.isArray(item[key]));
    if (wrapperKey) {
      const inner = callsFromValue(item[wrapperKey]);
      if (inner) {
        recognized = true;
        result.calls.push(...inner.calls);
        result.problems.push(...inner.problems);
      }
      continue;
    }
    const call = callFromObject(item);
    if (!call) continue;
    recognized = true;
    if ("args" in call) result.calls.push(call);
    else result.problems.push(call);
  }
  return recognized ? result : undefined;
}

/** True when `value` holds at least one call-shaped object. */
export function isCallShaped(value: unknown): boolean {
  return callsFromValue(value) !== undefined;
}
