/**
 * @module policy/tools-check
 * Checks a compiled policy against the tools it will govern: a rule naming an exact tool may only put
 * conditions on arguments that tool has, with operators that argument's kind supports ("where an operator
 * does not fit an argument's kind, the file is refused", DESIGN §6).
 */
import { type ArgKind, compileToolPattern, type Tool } from "../core/index.js";
import { withoutPlugin } from "./kinds.js";
import type { CompiledPolicy, PolicyToolInfo } from "./model.js";
import { PolicyProblem, policyError } from "./problem.js";

/** The argument names a tool declares (schema properties and argument kinds). */
function declaredArgs(tool: PolicyToolInfo | Tool): Set<string> | undefined {
  const properties = "parameters" in tool ? tool.parameters["properties"] : undefined;
  if (typeof properties !== "object" || properties === null) return undefined;
  return new Set([...Object.keys(properties), ...Object.keys(tool.argKinds ?? {})]);
}

/**
 * Refuses rules whose conditions cannot apply to the exact tools they name, and conditions on an argument
 * whose kind has no plug-in in the policy (e.g. `when.command` of `shell` without the command plug-in).
 * @throws ConfigError `policy.toml: rule #2 (tool "read_file"): when.path.host: operator "host" does not fit
 *   argument "path" of tool "read_file" (a path argument)`
 */
export function validateAgainstTools(policy: CompiledPolicy, tools: Iterable<PolicyToolInfo | Tool>): void {
  const byName = new Map<string, PolicyToolInfo | Tool>();
  for (const tool of tools) byName.set(tool.name, tool);
  for (const rule of policy.rules) {
    for (const entry of rule.tools) {
      const pattern = compileToolPattern(entry);
      if (pattern.type !== "exact") continue;
      const tool = byName.get(pattern.name);
      if (tool === undefined) continue;
      const args = declaredArgs(tool);
      for (const condition of rule.conditions) {
        const fail = (message: string): never => {
          const problem = new PolicyProblem(message, rule.ref.index - 1, rule.tools, "when");
          const lines = { topLevel: () => undefined, inRule: () => rule.line };
          throw policyError(problem, rule.ref.source, lines);
        };
        if (args !== undefined && !args.has(condition.arg)) {
          fail(
            `when.${condition.arg}: tool ${JSON.stringify(tool.name)} has no argument ${JSON.stringify(condition.arg)}`,
          );
        }
        const kind = tool.argKinds?.[condition.arg] ?? "text";
        if (!policy.plugins.some((p) => p.kind === kind)) {
          // Not a rule that silently never matches: the host forgot the kind's plug-in.
          fail(`when.${condition.arg}: ${kindGap(condition.arg, tool.name, kind)}`);
        }
        if (condition.tests[kind] === undefined) {
          fail(
            `when.${condition.arg}.${condition.operator}: operator ${JSON.stringify(condition.operator)} does not fit argument ${JSON.stringify(condition.arg)} of tool ${JSON.stringify(tool.name)} (a ${kind} argument)`,
          );
        }
      }
    }
  }
}

/** `argument "command" of tool "shell" is a command argument, and the policy was loaded without …` */
export function kindGap(arg: string, tool: string, kind: ArgKind): string {
  return `argument ${JSON.stringify(arg)} of tool ${JSON.stringify(tool)} is a ${kind} argument, and ${withoutPlugin(kind)}`;
}
