/**
 * @module policy/spec
 * Strict validation of a policy as data (from TOML, or written in code like the built-in default): known
 * keys only, decisions, risks, tool kinds, shapes of `when`, `match` and `not_match`. Operators and operands
 * are checked later, by the argument-kind plug-ins, in compile.ts.
 */
import type { ToolKind } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";
import { typeName } from "./conditions/operands.js";
import type { ExampleSpec, PolicySpec, RuleSpec } from "./model.js";
import { DECISIONS, isDecision, isRiskLevel, RISK_LEVELS } from "./order.js";
import { PolicyProblem } from "./problem.js";

/** Keys allowed at the top of a policy file. */
export const TOP_LEVEL_KEYS: readonly string[] = Object.freeze(["default", "rules"]);

/** Keys allowed in a rule (`kind`, `name`, `match`, `not_match` extend DESIGN §6). */
export const RULE_KEYS: readonly string[] = Object.freeze([
  "tool",
  "decision",
  "when",
  "risk",
  "message",
  "kind",
  "name",
  "match",
  "not_match",
  "sandbox",
]);

const EXAMPLE_KEYS: readonly string[] = Object.freeze(["tool", "kind", "args"]);

/** Every tool kind, for validating `kind`. */
export const TOOL_KINDS: readonly ToolKind[] = Object.freeze([
  "read",
  "search",
  "think",
  "edit",
  "delete",
  "execute",
  "fetch",
  "coordinate",
  "other",
]);

function quoteList(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

/**
 * Validates a whole policy object.
 * @throws PolicyProblem for the first problem found.
 */
export function validatePolicyObject(raw: unknown): PolicySpec {
  if (!isPlainObject(raw)) throw new PolicyProblem(`a policy must be a table, got ${typeName(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key)) {
      throw new PolicyProblem(
        `unknown key ${JSON.stringify(key)} (allowed: ${quoteList(TOP_LEVEL_KEYS)})`,
        undefined,
        undefined,
        key,
      );
    }
  }
  const decision = raw["default"] ?? "ask";
  if (!isDecision(decision)) {
    throw new PolicyProblem(
      `default must be one of ${quoteList(DECISIONS)}, got ${JSON.stringify(decision)}`,
      undefined,
      undefined,
      "default",
    );
  }
  const rules = raw["rules"] ?? [];
  if (!Array.isArray(rules)) {
    throw new PolicyProblem(
      `rules must be an array of tables ([[rules]]), got ${typeName(rules)}`,
      undefined,
      undefined,
      "rules",
    );
  }
  return { default: decision, rules: rules.map((rule, i) => validateRuleObject(rule, i)) };
}

/**
 * Validates one rule; `position` is its 0-based place, for messages.
 * @throws PolicyProblem naming the rule and key.
 */
export function validateRuleObject(raw: unknown, position: number): RuleSpec {
  if (!isPlainObject(raw)) throw new PolicyProblem(`a rule must be a table, got ${typeName(raw)}`, position);
  const tool = raw["tool"];
  const fail = (message: string, key?: string): never => {
    throw new PolicyProblem(message, position, tool, key);
  };
  for (const key of Object.keys(raw)) {
    if (!RULE_KEYS.includes(key))
      fail(`unknown key ${JSON.stringify(key)} (allowed: ${quoteList(RULE_KEYS)})`, key);
  }
  const tools = toolList(tool, fail);
  const decision = raw["decision"];
  if (decision === undefined) fail(`missing key "decision" (one of ${quoteList(DECISIONS)})`);
  if (!isDecision(decision)) {
    return fail(
      `decision must be one of ${quoteList(DECISIONS)}, got ${JSON.stringify(decision)}`,
      "decision",
    );
  }
  const spec: RuleSpec = { tool: tools, decision };
  const risk = raw["risk"];
  if (risk !== undefined) {
    if (!isRiskLevel(risk))
      fail(`risk must be one of ${quoteList(RISK_LEVELS)}, got ${JSON.stringify(risk)}`, "risk");
    else spec.risk = risk;
  }
  const message = raw["message"];
  if (message !== undefined) {
    if (typeof message !== "string") fail(`message must be a string, got ${typeName(message)}`, "message");
    else spec.message = message;
  }
  const sandbox = raw["sandbox"];
  if (sandbox !== undefined) {
    if (sandbox !== "network" && sandbox !== "off") {
      fail(`sandbox must be "network" or "off", got ${JSON.stringify(sandbox)}`, "sandbox");
    } else if (decision === "deny") {
      fail(
        `sandbox grants a way out of the shell sandbox; a deny rule runs nothing to grant it to`,
        "sandbox",
      );
    } else spec.sandbox = sandbox;
  }
  const name = raw["name"];
  if (name !== undefined) {
    if (typeof name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
      fail(
        `name must be a short identifier (letters, digits, "_", ".", "-"), got ${JSON.stringify(name)}`,
        "name",
      );
    } else spec.name = name;
  }
  if (raw["kind"] !== undefined) spec.kind = kindList(raw["kind"], "kind", fail);
  if (raw["when"] !== undefined) spec.when = whenTable(raw["when"], fail);
  if (raw["match"] !== undefined) spec.match = examples(raw["match"], "match", fail);
  if (raw["not_match"] !== undefined) spec.not_match = examples(raw["not_match"], "not_match", fail);
  return spec;
}

type Fail = (message: string, key?: string) => never;

function toolList(tool: unknown, fail: Fail): string[] {
  if (tool === undefined) return fail('missing key "tool" (a tool name, a glob, "*", or an array of these)');
  const list = typeof tool === "string" ? [tool] : tool;
  if (!Array.isArray(list) || list.length === 0 || !list.every((t) => typeof t === "string")) {
    return fail(`tool must be a string or a non-empty array of strings, got ${typeName(tool)}`, "tool");
  }
  return [...(list as string[])];
}

function kindList(value: unknown, key: string, fail: Fail): ToolKind[] {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) {
    return fail(`${key} must be a tool kind or a non-empty array of them, got ${typeName(value)}`, key);
  }
  for (const k of list) {
    if (typeof k !== "string" || !(TOOL_KINDS as readonly string[]).includes(k)) {
      fail(`${key} must name tool kinds (${quoteList(TOOL_KINDS)}), got ${JSON.stringify(k)}`, key);
    }
  }
  return [...(list as ToolKind[])];
}

function whenTable(when: unknown, fail: Fail): Record<string, Record<string, unknown>> {
  if (!isPlainObject(when)) {
    return fail(
      `when must be a table of arguments, e.g. when.path = { glob = "src/**" }; got ${typeName(when)}`,
      "when",
    );
  }
  // An empty `when` would silently make the rule unconditional (an allow for every call of the tool).
  if (Object.keys(when).length === 0)
    fail('when has no conditions (remove it, or add one, e.g. when.path = { glob = "src/**" })', "when");
  const out: Record<string, Record<string, unknown>> = {};
  for (const [arg, ops] of Object.entries(when)) {
    // The evaluator reads prepared arguments as plain properties; a name every object inherits
    // (`constructor`, `toString`, ...) would read Object.prototype's member when the call lacks it.
    if (arg in Object.prototype)
      fail(`when.${arg}: argument name ${JSON.stringify(arg)} is reserved`, "when");
    if (!isPlainObject(ops)) {
      fail(
        `when.${arg} must be a table of operators, e.g. when.${arg} = { equals = "x" }; got ${typeName(ops)}`,
        "when",
      );
    }
    const table = ops as Record<string, unknown>;
    if (Object.keys(table).length === 0) fail(`when.${arg} has no operators`, "when");
    out[arg] = { ...table };
  }
  return out;
}

function examples(value: unknown, key: string, fail: Fail): ExampleSpec[] {
  const list = isPlainObject(value) ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) {
    return fail(
      `${key} must be an example call { args = { ... } } or an array of them, got ${typeName(value)}`,
      key,
    );
  }
  return list.map((example, i) => {
    const label = `${key}[${i + 1}]`;
    if (!isPlainObject(example))
      return fail(`${label} must be a table { tool, kind, args }, got ${typeName(example)}`, key);
    for (const k of Object.keys(example)) {
      if (!EXAMPLE_KEYS.includes(k))
        fail(`${label}: unknown key ${JSON.stringify(k)} (allowed: ${quoteList(EXAMPLE_KEYS)})`, key);
    }
    const out: ExampleSpec = { args: {} };
    const tool = example["tool"];
    if (tool !== undefined) {
      if (typeof tool !== "string") fail(`${label}: tool must be a string, got ${typeName(tool)}`, key);
      out.tool = tool as string;
    }
    const kind = example["kind"];
    if (kind !== undefined) {
      if (typeof kind !== "string" || !(TOOL_KINDS as readonly string[]).includes(kind)) {
        fail(`${label}: kind must be one of ${quoteList(TOOL_KINDS)}, got ${JSON.stringify(kind)}`, key);
      }
      out.kind = kind as ToolKind;
    }
    const args = example["args"] ?? {};
    if (!isPlainObject(args)) fail(`${label}: args must be a table, got ${typeName(args)}`, key);
    out.args = { ...(args as Record<string, unknown>) };
    return out;
  });
}
