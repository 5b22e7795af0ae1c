/**
 * @module policy/problem
 * The one way policy loading reports what is wrong: a `PolicyProblem` says which rule and key, and
 * `policyError` turns it into the user-facing `ConfigError` naming the file, the line when known, the rule
 * (`rule #3 (tool "shell")`) and the problem.
 */
import { ConfigError } from "../core/index.js";
import { escapeRegex } from "../utils/index.js";

/** A problem found while validating or compiling a policy, before it is given its file and line. */
export class PolicyProblem extends Error {
  override readonly name = "PolicyProblem";
  constructor(
    message: string,
    /** 0-based position of the rule among the rules being loaded, when the problem is in a rule. */
    readonly rule?: number,
    /** The rule's `tool` as written, for the message. */
    readonly tool?: unknown,
    /** The key the problem is under (`when`, `decision`, ...), to find its line. */
    readonly key?: string,
  ) {
    super(message);
  }
}

/** Where rules start in the source text, to give lines for semantic problems. */
export interface LineFinder {
  /** 1-based line of a top-level key, if found. */
  topLevel(key: string): number | undefined;
  /** 1-based line of rule `rule` (0-based), or of `key` inside it, if found. */
  inRule(rule: number, key?: string): number | undefined;
}

/** `"shell"` or `["a", "b"]`, for messages; empty when the tool entry is unusable. */
export function describeTool(tool: unknown): string {
  if (typeof tool === "string") return JSON.stringify(tool);
  if (Array.isArray(tool) && tool.length > 0 && tool.every((t) => typeof t === "string")) {
    return JSON.stringify(tool.length === 1 ? tool[0] : tool);
  }
  return "";
}

/**
 * Turns a problem into the `ConfigError` the caller sees.
 * @example `policy.toml:12: rule #3 (tool "shell"): when.command: unknown operator "prefx"`
 */
export function policyError(problem: PolicyProblem, source: string, lines?: LineFinder): ConfigError {
  let line: number | undefined;
  let where = "";
  if (problem.rule !== undefined) {
    line = lines?.inRule(problem.rule, problem.key) ?? lines?.inRule(problem.rule);
    const tool = describeTool(problem.tool);
    where = `rule #${problem.rule + 1}${tool ? ` (tool ${tool})` : ""}: `;
  } else if (problem.key !== undefined) {
    line = lines?.topLevel(problem.key);
  }
  const at = line === undefined ? source : `${source}:${line}`;
  return new ConfigError(`${at}: ${where}${problem.message}`, source);
}

/**
 * Finds lines by scanning the text: `[[rules]]` headers delimit rules; inside a rule, a key is the first line
 * starting with `key =` or `key.`. Used only for messages, so a miss just omits the line.
 */
export function lineFinder(text: string, ruleCount: number): LineFinder {
  const lines = text.split(/\r?\n/);
  const headers: number[] = [];
  lines.forEach((line, i) => {
    if (/^\s*\[\[\s*rules\s*\]\]/.test(line)) headers.push(i);
  });
  const usable = headers.length === ruleCount;
  const findKey = (key: string, from: number, to: number): number | undefined => {
    const re = new RegExp(`^\\s*(?:${escapeRegex(key)}|"${escapeRegex(key)}")\\s*[.=]`);
    for (let i = from; i < to; i++) if (re.test(lines[i]!)) return i + 1;
    return undefined;
  };
  return {
    topLevel: (key) => findKey(key, 0, headers[0] ?? lines.length),
    inRule(rule, key) {
      if (!usable || headers[rule] === undefined) return undefined;
      const start = headers[rule]!;
      if (key === undefined) return start + 1;
      return findKey(key, start + 1, headers[rule + 1] ?? lines.length);
    },
  };
}
