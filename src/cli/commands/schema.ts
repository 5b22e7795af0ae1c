/**
 * @module cli/commands/schema
 * `toolgate schema --provider P [--report]`: the provider's tools payload (always JSON). `--report` lists on
 * stderr what the lowering had to drop or move into descriptions for that provider.
 */
import { parseArgs } from "node:util";
import { isProviderName, lowerTools, PROVIDER_NAMES } from "../../core/schemas/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";

export const usage = `toolgate schema --provider ${PROVIDER_NAMES.join("|")} [--report]`;

export async function runSchema(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { provider: { type: "string" }, report: { type: "boolean" } },
    allowPositionals: true,
  });
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
