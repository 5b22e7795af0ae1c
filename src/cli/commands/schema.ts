/**
 * @module cli/commands/schema
 * `toolgate schema --provider P [--report]`: the provider's tools payload (always JSON). `--report` lists on
 * stderr what the lowering had to drop or move into descriptions for that provider.
 */
import { isProviderName, lowerTools, PROVIDER_NAMES } from "../../core/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.schema;

const OPTIONS = {
  provider: {
    type: "string",
    value: "P",
    description: `the provider's format: ${PROVIDER_NAMES.join(", ")}`,
  },
  report: {
    type: "boolean",
    description: "list on stderr what the lowering dropped or moved into descriptions",
  },
} as const;

export const help: CommandHelp = {
  summary: "Prints the tools payload a provider's API takes (always JSON; --json makes it one line).",
  options: OPTIONS,
  examples: ["toolgate schema --provider anthropic", "toolgate schema --provider gemini --report --json"],
};

export async function runSchema(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate schema", argv, OPTIONS);
  if (positionals.length > 0 || !values.provider) throw new UsageError(`usage: ${usage}`);
  if (!isProviderName(values.provider)) {
    throw new UsageError(
      `unknown provider ${JSON.stringify(values.provider)}; use one of: ${PROVIDER_NAMES.join(", ")}`,
    );
  }
  const gate = await ctx.gate();
  // Every tool, the project's MCP servers included.
  const { registry } = await gate.tools();
  ctx.io.stdout(`${JSON.stringify(gate.schemas(values.provider), null, ctx.globals.json ? undefined : 2)}\n`);
  if (values.report) {
    for (const note of lowerTools(registry.list(), values.provider).report) {
      ctx.io.stderr(`${note.tool} ${note.path || "/"} ${note.keyword}: ${note.note}\n`);
    }
  }
  return EXIT.ok;
}
