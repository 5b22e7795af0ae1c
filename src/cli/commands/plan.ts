/**
 * @module cli/commands/plan
 * `toolgate plan --query Q [--response-file F|-] [--routing JSON] [--tools A,B]`: runs the planner on a model
 * response and prints its result, so a user can replay what a model said and see which calls would follow.
 * The response is read here (a file, or stdin for `-`); the planner only sees its text.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseRoutingPlan, plan, profileForTools, replyFromResponse } from "../../planner/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { readAll } from "../io.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.plan;

const OPTIONS = {
  query: { type: "string", value: "Q", description: "the user's question the response answers" },
  "response-file": {
    type: "string",
    value: "F",
    description: "the model's response: text, or a provider's JSON response (- reads stdin)",
  },
  routing: {
    type: "string",
    value: "JSON",
    description: "a routing plan {query_type, sub_questions, suggested_tools}",
  },
  tools: {
    type: "string",
    value: "A,B",
    description: "the tools the calls may use (default: the registry plus the planner profile's tools)",
  },
  round: {
    type: "string",
    value: "N",
    description: "the conversation's round (0, the default, is the first)",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Runs the planner guard on a model's response: native calls, JSON or fenced JSON calls, text that names a tool, a routing plan's fan-out, or the default call. Prints {method, calls, ...}; nothing is executed.",
  options: OPTIONS,
  examples: [
    'toolgate plan --query "What is PROJ-9?" --response-file reply.json',
    'echo "I will use web_fetch" | toolgate plan --query "summarise https://example.com" --response-file - --json',
  ],
};

export async function runPlan(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseOptions("toolgate plan", argv, OPTIONS);
  if (positionals.length > 0 || values.query === undefined) throw new UsageError(`usage: ${usage}`);
  const round = values.round === undefined ? 0 : Number(values.round);
  if (!Number.isInteger(round) || round < 0) throw new UsageError("--round must be a whole number ≥ 0");
  const routing = values.routing === undefined ? undefined : parseRoutingPlan(values.routing);
  const content = await readResponse(values["response-file"], ctx);
  const gate = await ctx.gate();
  const profile = profileForTools(gate.registry.list());
  const scope = values.tools
    ? splitList(values.tools)
    : [...new Set([...gate.registry.names(), ...Object.keys(profile.tools)])];
  const { jira, planner } = gate.settings;
  const result = await plan({
    query: values.query,
    ...(content !== undefined ? { reply: replyFromResponse(content) } : {}),
    ...(routing !== undefined ? { routing } : {}),
    scope,
    profile,
    round,
    ...(jira.projectKeys ? { jiraProjectKeys: jira.projectKeys } : {}),
    ...(planner.defaultTool ? { defaultCall: { name: planner.defaultTool } } : {}),
    ...(planner.routing !== undefined ? { fanOut: planner.routing } : {}),
  });
  ctx.io.stdout(`${JSON.stringify(result, null, ctx.globals.json ? undefined : 2)}\n`);
  return EXIT.ok;
}

/** The response's text: from stdin for `-`, else the named file; undefined when none is given. */
async function readResponse(file: string | undefined, ctx: CliContext): Promise<string | undefined> {
  if (file === undefined) return undefined;
  if (file === "-") return readAll(ctx.io.stdin);
  const path = resolve(ctx.io.cwd, file);
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new UsageError(`cannot read the response file ${path} (${code})`);
  }
}

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
