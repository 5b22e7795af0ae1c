/**
 * @module cli/commands/policy
 * `toolgate policy check TOOL [ARGS_JSON] [--explain]` (decide without executing) and
 * `toolgate policy validate FILE` (load a policy file; exit 2 with the problem when it is not valid).
 */
import { resolve } from "node:path";
import { COORDINATION_TOOLS } from "../../agents/index.js";
import { displaySafe, displaySafeJson } from "../../core/index.js";
import {
  type CompiledPolicy,
  lintPolicy,
  loadPolicyFile,
  type PolicyLintWarning,
} from "../../policy/index.js";
import { createToolgate } from "../../toolgate.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, exitCodeForError, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.policy;

const CHECK_OPTIONS = {
  explain: {
    type: "boolean",
    description: "check: show every rule considered and why it matched or not",
  },
} as const;
const VALIDATE_OPTIONS = {
  strict: {
    type: "boolean",
    description: "validate: a rule that can never apply (a misspelt tool name) makes the file invalid",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "check: the decision (allow, ask or deny), risk, rule and reason for a call, without running it. validate: loads a policy file against the workspace's tools (and --config's settings) and reports problems; exit 2 when it is invalid.",
  options: { ...CHECK_OPTIONS, ...VALIDATE_OPTIONS },
  examples: [
    `toolgate policy check shell '{"command":"rm -rf build"}' --explain`,
    "toolgate policy validate .toolgate/policy.toml --strict",
  ],
};

export async function runPolicy(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  if (sub === "check") return check(rest, ctx);
  if (sub === "validate") return validate(rest, ctx);
  throw new UsageError(`usage: ${usage}`);
}

async function check(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate policy check", argv, CHECK_OPTIONS);
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
    if (ctx.globals.json) ctx.io.stdout(`${displaySafeJson({ error: result.error })}\n`);
    else ctx.io.stderr(`toolgate: ${result.error.type}: ${displaySafe(result.error.message, false)}\n`);
    return exitCodeForError(result.error.type);
  }
  const { decision, risk, rule, reason } = result.decision;
  if (ctx.globals.json) {
    const out: Record<string, unknown> = { decision, risk, rule: rule?.id ?? null, reason };
    if (result.explanation !== undefined) out.explanation = result.explanation;
    ctx.io.stdout(`${displaySafeJson(out)}\n`);
  } else {
    // The reason may quote the call's words (a program's name): one display-safe line.
    ctx.io.stdout(
      `${decision} (risk ${risk})${rule ? ` by ${rule.id}` : ""}: ${displaySafe(reason, false)}\n`,
    );
    if (result.explanation) ctx.io.stdout(`${result.explanation.trimEnd()}\n`);
  }
  return EXIT.ok;
}

async function validate(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate policy validate", argv, VALIDATE_OPTIONS);
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError(`usage: ${usage}`);
  const path = resolve(ctx.io.cwd, file);
  // Validate against the workspace's tools, so operators that do not fit an argument's kind are refused.
  // The workspace's own policy is not loaded: a broken one must not stop checking a fixed one. The settings
  // are the ones the policy will run with (--config), so a tool they add or remove is seen.
  const gate = await createToolgate({
    roots: [ctx.root],
    cwd: ctx.io.cwd,
    policy: false,
    ...(ctx.globals.config ? { config: ctx.globals.config } : {}),
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
