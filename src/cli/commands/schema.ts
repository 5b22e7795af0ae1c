/**
 * @module cli/commands/schema
 * `toolgate schema --provider P`: the provider's tools payload (always JSON).
 */
import { parseArgs } from "node:util";
import { isProviderName, PROVIDER_NAMES } from "../../core/schemas/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";

export const usage = `toolgate schema --provider ${PROVIDER_NAMES.join("|")}`;

export async function runSchema(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { provider: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 0 || !values.provider) throw new UsageError(`usage: ${usage}`);
  if (!isProviderName(values.provider)) {
    throw new UsageError(
      `unknown provider ${JSON.stringify(values.provider)}; use one of: ${PROVIDER_NAMES.join(", ")}`,
    );
  }
  const gate = await ctx.gate();
  ctx.io.stdout(`${JSON.stringify(gate.schemas(values.provider), null, ctx.globals.json ? undefined : 2)}\n`);
  return EXIT.ok;
}
