/**
 * @module cli/commands/approvals
 * `toolgate approvals list|show|watch|approve|deny|rules`: the fleet's approval queue from any machine that
 * reaches its Redis (docs/fleet.md). A decision is exactly once: the store settles an ask only while it is pending, so of two
 * people deciding the same ask one wins and the other is told who decided and when.
 */
import { hostname, userInfo } from "node:os";
import {
  type ApprovalRecord,
  type ApprovalStore,
  displaySafe,
  unknownApprovalMessage,
} from "../../core/index.js";
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
  always: {
    type: "boolean",
    description:
      "approve: also add a rule allowing this tool with exactly these arguments (fleet: to the project's shared overlay; the shared folder: the rule the asking process offered, to its policy file), never over a deny",
  },
  remove: { type: "string", value: "ID", description: "rules: remove the overlay rule ID" },
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
    "toolgate approvals show 1f0c9a2e-…",
    "toolgate approvals approve 1f0c9a2e-… --always",
    "toolgate approvals rules --remove 1f0c9a2e-…",
    "toolgate approvals watch --json",
    'toolgate approvals deny 1f0c9a2e-… --reason "not on a Friday"',
  ],
};

/** Why there is nothing to decide here without a shared store. */
export const NO_FLEET =
  'approvals are shared only in fleet mode or through the shared folder: set [fleet] redis in your config (or TOOLGATE_REDIS_URL), or [approvals] route = "console"; without either an ask lives in the process that asked (docs/fleet.md, docs/console.md)';

/** toolgate's own line above an ask's details: id, state, tool, worker, times, the decision. */
function heading(record: ApprovalRecord): string {
  const parts = [record.id, record.state, record.tool];
  if (record.worker) parts.push(`worker ${record.worker}`);
  if (record.agent) parts.push(`agent ${record.agent}`);
  parts.push(`asked ${new Date(record.createdAt).toISOString()}`);
  if (record.state === "pending") parts.push(`expires ${new Date(record.expiresAt).toISOString()}`);
  else if (record.settled)
    parts.push(`by ${record.settled.by} at ${new Date(record.settled.at).toISOString()}`);
  // Every field came from whoever wrote the record: no hidden character reaches the terminal as itself.
  return displaySafe(parts.join("  "), false);
}

/** The overlay a fleet store carries (fleet/overlay.ts), seen through the store. */
interface OverlayView {
  list(): Promise<{ version: number; rules: { id: string; tool: string; by: string; at: number }[] }>;
  remove(id: string): Promise<boolean>;
}

type Values = ReturnType<typeof parseOptions<typeof OPTIONS>>["values"];

/** Whether the subcommand got exactly the arguments and flags it takes. */
function wellFormed(sub: string, args: string[], v: Values): boolean {
  const decides = v.by !== undefined;
  const none = !v.all && !v.always && v.remove === undefined && v.reason === undefined && !decides;
  if (sub === "list")
    return args.length === 0 && !v.always && v.remove === undefined && v.reason === undefined && !decides;
  if (sub === "show") return args.length === 1 && none;
  if (sub === "watch") return args.length === 0 && none;
  if (sub === "rules") return args.length === 0 && !v.all && !v.always && v.reason === undefined && !decides;
  if (sub === "approve")
    return args.length === 1 && !v.all && v.remove === undefined && v.reason === undefined;
  if (sub === "deny") return args.length === 1 && !v.all && !v.always && v.remove === undefined;
  return false;
}

/**
 * Runs `toolgate approvals ...`. Exit codes: 0 listed, shown, decided, watched until a signal, rules listed or
 * removed; 1 the ask was already decided (the message says by whom and when), cannot be approved "always", is
 * unknown, the rule is unknown, or the store failed; 2 bad usage, no shared store (fleet or the shared folder), or `rules`
 * without a fleet.
 * With `--json`: `list` prints the records; `show` the record; `watch` one record per line as events come;
 * `approve`/`deny` `{"ok":true,"record"}` or `{"ok":false,"message","record"?}`; `rules` `{"version","rules"}`,
 * `rules --remove` `{"ok","id"}`.
 */
export async function runApprovals(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { io } = ctx;
  let values: Values;
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
  if (!wellFormed(sub, args, values)) {
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
    if (sub === "show") return await show(approvals, ctx, args[0] as string);
    if (sub === "watch") return await watch(approvals, ctx);
    if (sub === "rules") return await rules(approvals, ctx, values.remove);
    const by = values.by ?? `${userInfo().username}@${hostname()}`;
    const id = args[0] as string;
    const overlay = hasOverlay(approvals);
    if (values.always) {
      const why = await noAlwaysRule(approvals, id, overlay);
      if (why) {
        if (json) io.stdout(`${JSON.stringify({ ok: false, message: why })}\n`);
        io.stderr(`toolgate: ${why}\n`);
        return EXIT.toolError;
      }
    }
    const result = await approvals.answer(id, {
      approved: sub === "approve",
      by,
      ...(values.always ? { scope: "always" as const } : {}),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    });
    if (json) io.stdout(`${JSON.stringify(result)}\n`);
    if (!result.ok) {
      io.stderr(`toolgate: ${result.message}\n`);
      return EXIT.toolError;
    }
    const always = !values.always
      ? ""
      : overlay
        ? `; rule ${id} added to the fleet's policy overlay`
        : "; the asking process adds the rule it offered to its policy file";
    if (!json) io.stdout(`${result.record.state} ${id} (${result.record.tool}) as ${by}${always}\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr(`toolgate: the approval store failed: ${(error as Error).message}\n`);
    return EXIT.toolError;
  }
}

/** Why `rules` has nothing to list on the shared folder. */
const NO_OVERLAY =
  'the shared approvals folder keeps no overlay rules: an "always" there adds its rule to the asking process\'s policy file (`toolgate policy validate` checks it); overlay rules exist only in fleet mode ([fleet] redis)';

/** Whether the store is a fleet's, whose "always" rules go to its shared overlay (fleet/overlay.ts). */
const hasOverlay = (approvals: ApprovalStore) =>
  (approvals as { overlay?: OverlayView }).overlay !== undefined;

/**
 * Why `approve ID --always` cannot add a rule for this ask, or `undefined` (the store then settles it).
 * Without a fleet's overlay the rule is the one the asking process offered with the ask, and only it writes
 * it: an ask offering none (or a refused one: a deny shadows it, no policy file) is not approved at all.
 */
async function noAlwaysRule(
  approvals: ApprovalStore,
  id: string,
  overlay: boolean,
): Promise<string | undefined> {
  const record = await approvals.get(id);
  if (!record) return unknownApprovalMessage(id);
  const cannot = `approval ${id} cannot be approved "always"`;
  if (record.argsDigest === undefined)
    return `${cannot}: it was published without an argument digest, so no rule can name exactly its call; approve it once`;
  if (overlay) return undefined;
  const offer = record.always;
  if (offer === undefined || !("rule" in offer))
    return `${cannot}: ${offer ? offer.refused : "the process that asked offers no rule"}; approve it once`;
  return undefined;
}

/** One ask with its details, as a prompt shows them. */
function render(record: ApprovalRecord): string {
  // The details may carry a model's words: renderConfirmation quotes them behind a gutter.
  return `${heading(record)}\n${renderConfirmation(record.details, { width: process.stdout.columns || 80 })}\n`;
}

async function show(approvals: ApprovalStore, ctx: CliContext, id: string): Promise<ExitCode> {
  const record = await approvals.get(id);
  if (!record) {
    ctx.io.stderr(`toolgate: ${unknownApprovalMessage(id)}\n`);
    return EXIT.toolError;
  }
  ctx.io.stdout(ctx.globals.json ? `${JSON.stringify(record)}\n` : render(record));
  return EXIT.ok;
}

/** Prints the pending asks, then every ask published or settled, until SIGINT or SIGTERM. */
async function watch(approvals: ApprovalStore, ctx: CliContext): Promise<ExitCode> {
  const { io } = ctx;
  const print = (record: ApprovalRecord) =>
    io.stdout(ctx.globals.json ? `${JSON.stringify(record)}\n` : render(record));
  const stop = approvals.watch(print);
  try {
    for (const record of await approvals.list({ state: "pending" })) print(record);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
  } finally {
    stop();
  }
  return EXIT.ok;
}

async function rules(
  approvals: ApprovalStore,
  ctx: CliContext,
  remove: string | undefined,
): Promise<ExitCode> {
  const { io } = ctx;
  const overlay = (approvals as { overlay?: OverlayView }).overlay;
  if (!overlay) {
    io.stderr(`toolgate: ${NO_OVERLAY}\n`);
    return EXIT.usage;
  }
  if (remove !== undefined) {
    const ok = await overlay.remove(remove);
    if (ctx.globals.json) io.stdout(`${JSON.stringify({ ok, id: remove })}\n`);
    if (!ok) io.stderr(`toolgate: no overlay rule with id ${JSON.stringify(remove)}\n`);
    else if (!ctx.globals.json) io.stdout(`removed overlay rule ${remove}\n`);
    return ok ? EXIT.ok : EXIT.toolError;
  }
  const listed = await overlay.list();
  if (ctx.globals.json) io.stdout(`${JSON.stringify(listed)}\n`);
  else if (listed.rules.length === 0) io.stdout(`no overlay rules (version ${listed.version})\n`);
  else {
    io.stdout(`overlay version ${listed.version}\n`);
    for (const r of listed.rules)
      io.stdout(
        `${displaySafe(`${r.id}  ${r.tool}  by ${r.by} at ${new Date(r.at).toISOString()}`, false)}\n`,
      );
  }
  return EXIT.ok;
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
  for (const record of records) io.stdout(render(record));
  return EXIT.ok;
}
