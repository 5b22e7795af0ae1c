/**
 * @module cli/commands/tools
 * `toolgate tools`: every tool of the gate — built-ins, coordination tools and the project's MCP tools —
 * sorted by name.
 */
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.tools;

export const help: CommandHelp = {
  summary:
    "Lists the registered tools, sorted by name, with their risk and the first line of their description.",
  options: {},
  examples: ["toolgate tools", "toolgate tools --json"],
};

export async function runTools(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseOptions("toolgate tools", argv, {});
  if (positionals.length > 0) throw new UsageError(`usage: ${usage}`);
  const gate = await ctx.gate();
  const tools = (await gate.tools()).registry.list();
  if (ctx.globals.json) {
    ctx.io.stdout(
      `${JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, risk: t.risk })))}\n`,
    );
    return EXIT.ok;
  }
  const width = Math.max(4, ...tools.map((t) => t.name.length));
  for (const t of tools) {
    const summary = t.description.split("\n")[0]!.slice(0, 100);
    ctx.io.stdout(`${t.name.padEnd(width)}  ${t.risk.padEnd(6)}  ${summary}\n`);
  }
  return EXIT.ok;
}
