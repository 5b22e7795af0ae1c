/**
 * @module cli/chat/policy-summary
 * How chat's `/policy` shows a rule: what it says, conditions included, in the policy file's own words —
 * `tool = "*", decision = "allow", kind = ["read", "search", "think"]` — so `tool "*", decision allow` is never
 * read as "everything allowed". Long lists are cut with a count of what was left out.
 */
import type { CompiledRule } from "../../policy/index.js";

/** List items shown before the rest is counted. */
const MAX_ITEMS = 6;

/**
 * One line for a rule: its id and line, then its table.
 * @example ruleSummary(rule) // 'policy.toml#2 (line 7): tool = "shell", decision = "allow", when.command = { prefix = ["git status", "ls"] }'
 */
export function ruleSummary(rule: CompiledRule): string {
  const { spec } = rule;
  const parts = [
    `tool = ${value(spec.tool.length === 1 ? spec.tool[0] : spec.tool)}`,
    `decision = ${value(spec.decision)}`,
  ];
  if (spec.kind) parts.push(`kind = ${value(spec.kind)}`);
  for (const [arg, operators] of Object.entries(spec.when ?? {})) {
    const ops = Object.entries(operators).map(([op, operand]) => `${op} = ${value(operand)}`);
    parts.push(`when.${arg} = { ${ops.join(", ")} }`);
  }
  if (spec.risk) parts.push(`risk = ${value(spec.risk)}`);
  if (spec.sandbox) parts.push(`sandbox = ${value(spec.sandbox)}`);
  if (spec.message) parts.push(`message = ${value(spec.message)}`);
  const unconditional = !spec.kind && !spec.when;
  const where = rule.line ? ` (line ${rule.line})` : "";
  return `${rule.ref.id}${where}: ${parts.join(", ")}${unconditional ? " — every call of the tool" : ""}`;
}

function value(v: unknown): string {
  if (!Array.isArray(v)) return JSON.stringify(v);
  const shown = v.slice(0, MAX_ITEMS).map((item) => JSON.stringify(item));
  if (v.length > MAX_ITEMS) shown.push(`… ${v.length - MAX_ITEMS} more`);
  return `[${shown.join(", ")}]`;
}
