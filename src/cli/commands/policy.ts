/**
 * @module cli/commands/policy
 * `toolgate policy check TOOL [ARGS_JSON] [--explain]` (decide without executing) and
 * `toolgate policy validate FILE` (load a policy file; exit 2 with the problem when it is not valid).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { COORDINATION_TOOLS } from "../../agents/index.js";
import {
  type CompiledPolicy,
  lintPolicy,
  loadPolicyFile,
  type PolicyLintWarning,
} from "../../policy/index.js";
import { createToolgate } from "../../toolgate.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, exitCodeForError, UsageError } from "../exit-codes.js";

export const usage =
  "toolgate policy check TOOL [ARGS_JSON] [--explain] | toolgate policy validate FILE [--strict]";

export async function runPolicy(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  if (sub === "check") return check(rest, ctx);
  if (sub === "validate") return validate(rest, ctx);
  throw new UsageError(`usage: ${usage}`);
}

async function check(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { explain: { type: "boolean" } },
    allowPositionals: true,
  });
  const [name, argsText, ...extra] = positionals;
  if (!name || extra.length > 0) throw new UsageError(`usage: ${usage}`);
  let args: unknown = {};
  if (argsText !== undefined) {
    try {
      args = JSON.parse(argsText);
    } catch (error) {
      throw new UsageError(`ARGS_JSON is not valid JSON: ${(error as Error).message}`);
    }
  }
  const gate = await ctx.gate();
  const result = await gate.check({ name, args }, { explain: values.explain === true });
  if (!result.ok) {
    if (ctx.globals.json) ctx.io.stdout(`${JSON.stringify({ error: result.error })}\n`);
    else ctx.io.stderr(`toolgate: ${result.error.type}: ${result.error.message}\n`);
    return exitCodeForError(result.error.type);
  }
  const { decision, risk, rule, reason } = result.decision;
  if (ctx.globals.json) {
    const out: Record<string, unknown> = { decision, risk, rule: rule?.id ?? null, reason };
    if (result.explanation !== undefined) out.explanation = result.explanation;
    ctx.io.stdout(`${JSON.stringify(out)}\n`);
  } else {
    ctx.io.stdout(`${decision} (risk ${risk})${rule ? ` by ${rule.id}` : ""}: ${reason}\n`);
    if (result.explanation) ctx.io.stdout(`${result.explanation.trimEnd()}\n`);
  }
  return EXIT.ok;
}

async function validate(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { strict: { type: "boolean" } },
    allowPositionals: true,
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError(`usage: ${usage}`);
  const path = resolve(ctx.io.cwd, file);
  // Validate against the workspace's tools, so operators that do not fit an argument's kind are refused.
  // The workspace's own policy is not loaded: a broken one must not stop checking a fixed one.
  const gate = await createToolgate({
    roots: [ctx.root],
    cwd: ctx.io.cwd,
    policy: false,
    logger: { warn: () => undefined },
  });
  try {
    const policy = await loadPolicyFile(path, {
      plugins: gate.policy.plugins,
      roots: gate.roots,
      tools: gate.registry.list(),
    });
    const known = [...gate.registry.names(), ...COORDINATION_TOOLS];
    const warnings = lintPolicy(policy, known);
    // --strict: a rule that can never apply (a misspelt tool name) makes the file invalid.
    const strict = values.strict === true && warnings.length > 0;
    report(policy, path, ctx, warnings, strict);
    return strict ? EXIT.usage : EXIT.ok;
  } finally {
    await gate.close();
  }
}

function report(
  policy: CompiledPolicy,
  path: string,
  ctx: CliContext,
  warnings: readonly PolicyLintWarning[],
  strict: boolean,
): void {
  const kind = strict ? "error" : "warning";
  if (!ctx.globals.json)
    for (const w of warnings) ctx.io.stderr(`toolgate: ${kind}: ${path}: ${w.message}\n`);
  if (ctx.globals.json) {
    const out = {
      valid: !strict,
      file: path,
      rules: policy.rules.length,
      warnings: warnings.map((w) => ({
        rule: w.rule,
        tool: w.tool,
        severity: w.severity,
        message: w.message,
      })),
    };
    ctx.io.stdout(`${JSON.stringify(out)}\n`);
  } else if (strict)
    ctx.io.stderr(
      `toolgate: ${path}: invalid under --strict (${warnings.length} rule problem${warnings.length === 1 ? "" : "s"})\n`,
    );
  else
    ctx.io.stdout(
      `${path}: valid (${policy.rules.length} rule${policy.rules.length === 1 ? "" : "s"}, default ${policy.defaultDecision})\n`,
    );
}
