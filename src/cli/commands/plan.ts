/**
 * @module cli/commands/plan
 * `toolgate plan --query Q [--response-file F|-] [--routing JSON] [--tools A,B]`: runs the planner on a model
 * response and prints its result, so a user can replay what a model said and see which calls would follow.
 */
import { parseArgs } from "node:util";
// Command-line code still kept in the planner folder (to move into src/cli); not part of its public door.
import { planFromCli } from "../../planner/cli.js";
import { profileForTools } from "../../planner/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";

export const usage =
  "toolgate plan --query Q [--response-file F|-] [--routing JSON] [--tools A,B] [--round N]";

export async function runPlan(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      query: { type: "string" },
      "response-file": { type: "string" },
      routing: { type: "string" },
      tools: { type: "string" },
      round: { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0 || values.query === undefined) throw new UsageError(`usage: ${usage}`);
  const round = values.round === undefined ? 0 : Number(values.round);
  if (!Number.isInteger(round) || round < 0) throw new UsageError("--round must be a whole number ≥ 0");
  const gate = await ctx.gate();
  const file = values["response-file"];
  const response = file === "-" ? await readAll(ctx.io.stdin) : undefined;
  const result = await planFromCli({
    query: values.query,
    ...(response !== undefined ? { response } : file !== undefined ? { responseFile: file } : {}),
    ...(values.routing !== undefined ? { routing: values.routing } : {}),
    ...(values.tools !== undefined ? { tools: splitList(values.tools) } : {}),
    registered: gate.registry.names(),
    profile: profileForTools(gate.registry.list()),
    round,
    ...(gate.config.jira?.project_keys ? { jiraProjectKeys: gate.config.jira.project_keys } : {}),
    ...(gate.config.planner?.default_tool ? { defaultTool: gate.config.planner.default_tool } : {}),
    ...(gate.config.planner?.routing !== undefined ? { fanOut: gate.config.planner.routing } : {}),
  });
  ctx.io.stdout(`${JSON.stringify(result, null, ctx.globals.json ? undefined : 2)}\n`);
  return EXIT.ok;
}

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
