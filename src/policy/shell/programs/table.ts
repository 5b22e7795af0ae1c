/**
 * @module policy/shell/programs/table
 * Renders the program knowledge as the markdown table `docs/policy-shell.md` shows, so the page is generated
 * from the data (a test fails when the page is stale).
 */
import type { CommandSpec, EffectSpec, OptionSpec, ProgramSpec } from "./spec.js";

const code = (s: string) => `\`${s.replaceAll("|", "\\|")}\``;
const line = (what: string, spec: EffectSpec) =>
  `${what} — ${spec.effect}: ${spec.reason.replaceAll("|", "\\|")}`;

/** One line per argument with an effect, sub-commands prefixed by their words. */
function lines(spec: CommandSpec, prefix: string): string[] {
  const out: string[] = [];
  if (spec.effect) out.push(line(code(prefix.trim()), spec.effect));
  const seen = new Set<OptionSpec>();
  for (const opt of spec.options.values()) {
    if (seen.has(opt)) continue;
    seen.add(opt);
    const names = opt.names.map((n) => code(`${prefix}${n}`)).join(", ");
    if (opt.effect) out.push(line(names, opt.effect));
    for (const [value, effect] of opt.byValue ?? [])
      out.push(line(code(`${prefix}${opt.names[0]} ${value}`), effect));
    for (const { pattern, effect } of opt.byPattern ?? [])
      out.push(
        line(`${code(`${prefix}${opt.names[0]} VALUE`)} (a value matching ${code(pattern.source)})`, effect),
      );
    if (opt.longOption)
      out.push(
        `${code(`${prefix}${opt.names[0]} NAME`)} — read as the long option NAME abbreviates, comma lists too (\`-We\` is \`--exec\`)`,
      );
  }
  for (const op of spec.operands) {
    const at = op.at === "all" ? "every operand" : op.at === "last" ? "the last operand" : `operand ${op.at}`;
    const unless = op.unlessAny.size > 0 ? " (unless listing)" : "";
    const matching = op.matching ? ` matching ${code(op.matching.source)}` : "";
    out.push(line(`${code(`${prefix}${op.label}`)} (${at}${matching}${unless})`, op));
  }
  for (const [name, effect] of spec.assignments) out.push(line(code(`${prefix}${name}=…`), effect));
  const subs = new Map<CommandSpec, string[]>();
  for (const [name, sub] of spec.subcommands) subs.set(sub, [...(subs.get(sub) ?? []), name]);
  // Aliases share one compiled entry: `git diff/log/show --output`.
  for (const [sub, names] of subs) out.push(...lines(sub, `${prefix}${names.join("/")} `));
  if (spec.otherSubcommands)
    out.push(line(code(`${prefix}NAME`) + " (any other sub-command)", spec.otherSubcommands));
  return out;
}

/**
 * The markdown table of every program the analysis knows, sorted by data file.
 * @example programTable(programs()).split("\n")[0] // "| program | about | not vouched for by an allow rule on the program |"
 */
export function programTable(programs: ReadonlyMap<string, ProgramSpec>): string {
  const specs = [...new Set(programs.values())].sort((a, b) => a.file.localeCompare(b.file));
  const rows = specs.map((spec) => {
    const found = lines(spec, `${spec.names[0]} `);
    if (spec.script)
      found.push(`the ${spec.script} script: see [${spec.script} scripts](#${spec.script}-scripts)`);
    const cell = found.length === 0 ? "nothing: every option is within its plain role" : found.join("<br>");
    return `| ${spec.names.map(code).join(", ")} | ${spec.about.replaceAll("|", "\\|")} | ${cell} |`;
  });
  return [
    "| program | about | not vouched for by an allow rule on the program |",
    "|---|---|---|",
    ...rows,
  ].join("\n");
}
