/**
 * @module cli/commands/approvals
 * `toolgate approvals list|approve|deny`: the fleet's approval queue from any machine that reaches its Redis
 * (docs/fleet.md). A decision is exactly once: the store settles an ask only while it is pending, so of two
 * people deciding the same ask one wins and the other is told who decided and when.
 */
import { hostname, userInfo } from "node:os";
import type { ApprovalRecord, ApprovalStore } from "../../core/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { renderConfirmation } from "../prompt.js";
import { USAGE } from "../usage.js";

const usage = USAGE.approvals;

const OPTIONS = {
  all: {
    type: "boolean",
    description: "list: every ask kept (decided, expired, withdrawn), not only pending",
  },
  reason: { type: "string", value: "TEXT", description: "deny: why, shown to the agent that asked" },
  by: {
    type: "string",
    value: "NAME",
    description: "approve, deny: who decides, as recorded (default: your user name @ this host)",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Lists and decides the fleet's asks ([fleet] in the config): each ask is decided exactly once, from any machine.",
  options: OPTIONS,
  examples: [
    "toolgate approvals list",
    "toolgate approvals approve 1f0c9a2e-…",
    'toolgate approvals deny 1f0c9a2e-… --reason "not on a Friday"',
  ],
};

/** Why there is nothing to decide here without fleet mode. */
export const NO_FLEET =
  "approvals are shared only in fleet mode: set [fleet] redis in your config (or TOOLGATE_REDIS_URL); without it an ask lives in the process that asked (docs/fleet.md)";

/** toolgate's own line above an ask's details: id, state, tool, worker, times, the decision. */
function heading(record: ApprovalRecord): string {
  const parts = [record.id, record.state, record.tool];
  if (record.worker) parts.push(`worker ${record.worker}`);
  if (record.agent) parts.push(`agent ${record.agent}`);
  parts.push(`asked ${new Date(record.createdAt).toISOString()}`);
  if (record.state === "pending") parts.push(`expires ${new Date(record.expiresAt).toISOString()}`);
  else if (record.settled)
    parts.push(`by ${record.settled.by} at ${new Date(record.settled.at).toISOString()}`);
  // Every field came from the server: no control character reaches the terminal.
  return parts.join("  ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}

/**
 * Runs `toolgate approvals ...`. Exit codes: 0 listed or decided; 1 the ask was already decided (the message
 * says by whom and when), is unknown, or the store failed; 2 bad usage, or no fleet configured.
 * With `--json`: `list` prints the records; `approve`/`deny` `{"ok":true,"record"}` or `{"ok":false,"message","record"?}`.
 */
export async function runApprovals(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { io } = ctx;
  let values: ReturnType<typeof parseOptions<typeof OPTIONS>>["values"];
  let sub: string;
  let args: string[];
  try {
    const parsed = parseOptions("toolgate approvals", argv, OPTIONS);
    values = parsed.values;
    [sub = "", ...args] = parsed.positionals;
  } catch (error) {
    io.stderr(`toolgate: ${(error as Error).message}\nusage: ${usage}\n`);
    return EXIT.usage;
  }
  const wellFormed =
    (sub === "list" && args.length === 0 && values.reason === undefined && values.by === undefined) ||
    (sub === "approve" && args.length === 1 && values.reason === undefined && !values.all) ||
    (sub === "deny" && args.length === 1 && !values.all);
  if (!wellFormed) {
    io.stderr(`usage: ${usage}\n`);
    return EXIT.usage;
  }
  const { approvals } = await ctx.gate();
  if (!approvals.shared) {
    io.stderr(`toolgate: ${NO_FLEET}\n`);
    return EXIT.usage;
  }
  const json = ctx.globals.json;
  try {
    if (sub === "list") return await list(approvals, ctx, values.all === true);
    const by = values.by ?? `${userInfo().username}@${hostname()}`;
    const id = args[0] as string;
    const result = await approvals.answer(id, {
      approved: sub === "approve",
      by,
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    });
    if (json) io.stdout(`${JSON.stringify(result)}\n`);
    if (!result.ok) {
      io.stderr(`toolgate: ${result.message}\n`);
      return EXIT.toolError;
    }
    if (!json) io.stdout(`${result.record.state} ${id} (${result.record.tool}) as ${by}\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr(`toolgate: the approval store failed: ${(error as Error).message}\n`);
    return EXIT.toolError;
  }
}

async function list(approvals: ApprovalStore, ctx: CliContext, all: boolean): Promise<ExitCode> {
  const { io } = ctx;
  const records = (await approvals.list(all ? {} : { state: "pending" })).sort(
    (a, b) => a.createdAt - b.createdAt,
  );
  if (ctx.globals.json) {
    io.stdout(`${JSON.stringify(records)}\n`);
    return EXIT.ok;
  }
  if (records.length === 0) {
    io.stdout(all ? "no asks\n" : "no pending asks\n");
    return EXIT.ok;
  }
  // The details may carry a model's words: renderConfirmation quotes them behind a gutter.
  for (const record of records)
    io.stdout(
      `${heading(record)}\n${renderConfirmation(record.details, { width: process.stdout.columns || 80 })}\n`,
    );
  return EXIT.ok;
}
