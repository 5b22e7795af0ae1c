/**
 * @module policy/examples
 * Rules carry self-tests (STYLE §9): each `match` example must match its rule and each `not_match` example
 * must not. Examples are prepared through the same plug-ins as real calls, so they are checked at load
 * (async: a plug-in's `prepare` may do IO) and a failing one is a load error naming the rule.
 */
import { type ArgKind, compileToolPattern, type ToolKind } from "../core/index.js";
import { matchRule } from "./evaluate.js";
import type { CompiledRule, ExampleSpec, PolicyToolInfo, PreparedCall } from "./model.js";
import { PolicyProblem } from "./problem.js";
import type { ArgKindPlugin } from "./types.js";

/** What example checking needs from the host. */
export interface ExampleContext {
  plugins: readonly ArgKindPlugin[];
  /** Roots for path arguments. */
  roots: readonly string[];
  /** Known tools, to give examples their real kinds and argument kinds. */
  tools?: ReadonlyMap<string, PolicyToolInfo>;
}

/** True when one of the rule's `tool` entries names `name`. */
export function ruleNamesTool(rule: CompiledRule, name: string): boolean {
  return rule.tools.some((entry) => {
    const pattern = compileToolPattern(entry);
    return pattern.type === "any" || (pattern.type === "exact" ? pattern.name === name : pattern.test(name));
  });
}

/**
 * The kind an unknown tool's argument most likely has: the one non-text kind whose plug-in supports every
 * operator the rule uses on it, else text.
 */
function inferArgKind(rule: CompiledRule, arg: string): ArgKind {
  const conditions = rule.conditions.filter((c) => c.arg === arg);
  const kinds = (["path", "command", "url"] as const).filter((kind) =>
    conditions.every((c) => c.tests[kind] !== undefined),
  );
  if (kinds.length === 1) return kinds[0]!;
  return conditions.every((c) => c.tests.text !== undefined) || kinds.length === 0 ? "text" : kinds[0]!;
}

async function exampleCall(
  rule: CompiledRule,
  example: ExampleSpec,
  label: string,
  context: ExampleContext,
): Promise<PreparedCall> {
  const name = example.tool ?? rule.tools.map(compileToolPattern).find((p) => p.type === "exact")?.name;
  const key = label.slice(0, label.indexOf("["));
  const fail = (message: string): never => {
    throw new PolicyProblem(`${label}: ${message}`, rule.ref.index - 1, rule.tools, key);
  };
  if (name === undefined) return fail("needs a tool (the rule names no exact tool)");
  const known = context.tools?.get(name);
  const argKinds: Record<string, ArgKind> = {};
  for (const arg of Object.keys(example.args)) {
    argKinds[arg] = known ? (known.argKinds?.[arg] ?? "text") : inferArgKind(rule, arg);
  }
  const kind: ToolKind = example.kind ?? known?.kind ?? "other";
  const args: Record<string, unknown> = {};
  for (const [arg, raw] of Object.entries(example.args)) {
    const plugin = context.plugins.find((p) => p.kind === argKinds[arg]);
    try {
      args[arg] = plugin ? await plugin.prepare(raw, { roots: context.roots, args: example.args }) : raw;
    } catch (error) {
      fail(`preparing argument ${JSON.stringify(arg)} failed: ${(error as Error).message}`);
    }
  }
  return { tool: { name, kind, argKinds }, args, risk: known?.risk ?? "medium" };
}

function describeExample(example: ExampleSpec): string {
  const parts = [];
  if (example.tool !== undefined) parts.push(`tool ${JSON.stringify(example.tool)}`);
  if (example.kind !== undefined) parts.push(`kind ${example.kind}`);
  parts.push(`args ${JSON.stringify(example.args)}`);
  return parts.join(", ");
}

/**
 * Checks every example of `rules`.
 * @throws PolicyProblem `match[1] (args {"command":"ls"}) does not match this rule`
 */
export async function checkExamples(rules: readonly CompiledRule[], context: ExampleContext): Promise<void> {
  for (const rule of rules) {
    const sets = [
      ["match", rule.spec.match ?? [], true],
      ["not_match", rule.spec.not_match ?? [], false],
    ] as const;
    for (const [key, examples, want] of sets) {
      for (let i = 0; i < examples.length; i++) {
        const example = examples[i]!;
        const label = `${key}[${i + 1}]`;
        const call = await exampleCall(rule, example, label, context);
        const got = ruleNamesTool(rule, call.tool.name) && matchRule(rule, call) !== undefined;
        if (got !== want) {
          const verdict = want ? "does not match this rule" : "matches this rule but must not";
          throw new PolicyProblem(
            `${label} (${describeExample(example)}) ${verdict}`,
            rule.ref.index - 1,
            rule.tools,
            key,
          );
        }
      }
    }
  }
}
