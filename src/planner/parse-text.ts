/**
 * @module planner/parse-text
 * Structured tool calls written into a reply's text, in the dialects local models really emit:
 * `<tool_call>` tags (Qwen, Hermes), `[TOOL_CALLS]` (Mistral, both versions), `<|python_tag|>` (Llama 3.1),
 * `<function=name>` tags (Llama 3.1 custom tools), fenced JSON blocks, and bare JSON anywhere in the text.
 */
import { callsFromValue, isCallShaped } from "./call-shape.js";
import { balancedEnd, findJsonValues, parseJsonLenient } from "./json-scan.js";
import { splitThinking } from "./strip-think.js";
import type { PlannedCall, SkippedCall } from "./types.js";

/** What was found, and in which dialect. */
export interface StructuredCalls {
  format: string;
  calls: PlannedCall[];
  problems: SkippedCall[];
}

type Finder = (text: string) => StructuredCalls | undefined;

function collect(format: string, values: unknown[]): StructuredCalls | undefined {
  const out: StructuredCalls = { format, calls: [], problems: [] };
  for (const value of values) {
    const found = callsFromValue(value);
    if (!found) continue;
    out.calls.push(...found.calls);
    out.problems.push(...found.problems);
  }
  return out.calls.length + out.problems.length > 0 ? out : undefined;
}

function jsonValuesIn(segment: string): unknown[] {
  const whole = parseJsonLenient(segment.trim());
  if (whole) return [whole.value];
  return findJsonValues(segment, isCallShaped).map((found) => found.value);
}

/** `<tool_call>…</tool_call>`; the last tag may be unterminated (reply cut off after the JSON). */
const toolCallTags: Finder = (text) => {
  const values: unknown[] = [];
  const tag = /<(tool_call|function_call)>([\s\S]*?)(?:<\/\1>|(?=<\1>)|$)/gi;
  for (const match of text.matchAll(tag)) values.push(...jsonValuesIn(match[2]!));
  return collect("<tool_call> tags", values);
};

/** `<function=name>{…}</function>` (Llama 3.1 custom tool format). */
const functionTags: Finder = (text) => {
  const values: unknown[] = [];
  for (const match of text.matchAll(/<function=([A-Za-z0-9_.-]+)>([\s\S]*?)<\/function>/g)) {
    const body = match[2]!.trim();
    values.push({ name: match[1], arguments: body === "" ? {} : body });
  }
  return collect("<function=…> tags", values);
};

/** `[TOOL_CALLS] [{…}]` (Mistral v3) and `[TOOL_CALLS]name[ARGS]{…}` (Mistral v11). */
const mistral: Finder = (text) => {
  const values: unknown[] = [];
  const marker = "[TOOL_CALLS]";
  let at = text.indexOf(marker);
  while (at >= 0) {
    let i = at + marker.length;
    while (/\s/.test(text[i] ?? "")) i++;
    if (text[i] === "[" || text[i] === "{") {
      const end = balancedEnd(text, i);
      const parsed = end > 0 ? parseJsonLenient(text.slice(i, end)) : undefined;
      if (parsed) values.push(parsed.value);
    } else {
      const v11 = /^([A-Za-z0-9_.-]+)(?:\[CALL_ID\][A-Za-z0-9]+)?\[ARGS\]/.exec(text.slice(i));
      if (v11) {
        const argsAt = i + v11[0].length;
        const end = balancedEnd(text, argsAt);
        const parsed = end > 0 ? parseJsonLenient(text.slice(argsAt, end)) : undefined;
        if (parsed) values.push({ name: v11[1], arguments: parsed.value });
      }
    }
    at = text.indexOf(marker, at + marker.length);
  }
  return collect("[TOOL_CALLS]", values);
};

/** `<|python_tag|>{"name": …, "parameters": …}` — several may follow, separated by `;` or newlines. */
const pythonTag: Finder = (text) => {
  const values: unknown[] = [];
  const tag = /<\|python_tag\|>([\s\S]*?)(?:<\|eom_id\|>|<\|eot_id\|>|(?=<\|python_tag\|>)|$)/g;
  for (const match of text.matchAll(tag)) {
    values.push(...findJsonValues(match[1]!, isCallShaped).map((found) => found.value));
  }
  return collect("<|python_tag|>", values);
};

/** Fenced blocks: ```json, ```tool_call, ```tool_code or unlabelled. */
const fenced: Finder = (text) => {
  const values: unknown[] = [];
  const fence = /```[ \t]*(json|jsonc|json5|tool_call|tool_code|tool|)[ \t]*\r?\n([\s\S]*?)```/gi;
  for (const match of text.matchAll(fence)) values.push(...jsonValuesIn(match[2]!));
  return collect("fenced JSON block", values);
};

/** The whole reply, or every call-shaped JSON value in it. */
const bareJson: Finder = (text) => collect("JSON in the reply text", jsonValuesIn(text));

const FINDERS: readonly Finder[] = [toolCallTags, functionTags, mistral, pythonTag, fenced, bareJson];
/** The models' own call markup: a call wherever it appears. */
const MARKUP: readonly Finder[] = [toolCallTags, functionTags, mistral, pythonTag];

/** JSON that is the whole reply, alone or as one fenced block: a call, not an example inside prose. */
const wholeReply: Finder = (text) => {
  const lone = /^```[ \t]*(json|jsonc|json5|tool_call|tool_code|tool|)[ \t]*\r?\n([\s\S]*?)```$/i.exec(
    text.trim(),
  );
  const parsed = parseJsonLenient((lone ? lone[2]! : text).trim());
  return parsed ? collect(lone ? "fenced JSON block" : "JSON in the reply text", [parsed.value]) : undefined;
};

/**
 * Finds structured calls in a reply's text after removing its thinking. The first dialect that yields
 * anything wins. Returns `undefined` when there is nothing structured (broken JSON counts as nothing).
 * `strict` accepts only the models' call markup, or JSON that is the whole reply.
 * @example parseStructuredCalls('<think>hmm</think><tool_call>{"name":"grep","arguments":{"pattern":"x"}}</tool_call>')
 */
export function parseStructuredCalls(
  text: string,
  options: { strict?: boolean } = {},
): StructuredCalls | undefined {
  const { visible } = splitThinking(text);
  if (visible === "") return undefined;
  // Strict: a JSON block inside prose is an example; only call markup or a reply that is nothing but the call.
  for (const find of options.strict ? [...MARKUP, wholeReply] : FINDERS) {
    const found = find(visible);
    if (found) return found;
  }
  return undefined;
}
