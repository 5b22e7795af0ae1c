/**
 * @module cli/commands/hooks
 * `toolgate hooks list`: every hook the gate runs, with its source, and the ones that do not run — a
 * workspace's waiting for `toolgate trust`, host-file entries toolgate does not run (other events, Codex's
 * async hooks).
 */
import type { HookSpec } from "../../hooks/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.hooks;

export const help: CommandHelp = {
  summary:
    "Lists the hooks: the config's [[hooks]], ~/.claude/settings.json, ~/.gemini/settings.json, ~/.codex/hooks.json and ~/.codex/config.toml, and the workspace's same files (these only once trusted), each with its source and whether it runs.",
  options: {},
  examples: [
    "toolgate hooks list",
    "toolgate hooks list --json",
    "toolgate hooks list --config ~/toolgate.toml",
  ],
};

/** One row of the listing; `--json` prints these. */
interface Row {
  name: string;
  event: string;
  format: string;
  match: string;
  command: string;
  timeout_ms: number | null;
  origin: string;
  source: string;
  status: "runs" | "not trusted" | "skipped";
  why?: string;
}

function row(spec: HookSpec, status: Row["status"], why?: string): Row {
  const match = "tools" in spec.match ? spec.match.tools.join(", ") : spec.match.matcher || "*";
  return {
    name: spec.name,
    event: spec.event,
    format: spec.format,
    match,
    command: spec.command,
    timeout_ms: spec.timeoutMs,
    origin: spec.origin,
    source: spec.source,
    status,
    ...(why ? { why } : {}),
  };
}

export async function runHooks(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseOptions("toolgate hooks", argv, {});
  if (positionals.length !== 1 || positionals[0] !== "list") throw new UsageError(`usage: ${usage}`);
  const { hooks } = await ctx.gate();
  const rows: Row[] = [
    ...hooks.hooks.map((h) => row(h, "runs")),
    ...hooks.untrusted.map((h) =>
      row(h, "not trusted", "the workspace's hooks run once `toolgate trust` trusts them"),
    ),
    ...hooks.skipped.map(
      (s): Row => ({
        name: "",
        event: "",
        format: "",
        match: "",
        command: "",
        timeout_ms: null,
        origin: "",
        source: s.source,
        status: "skipped",
        why: s.why,
      }),
    ),
  ];
  if (ctx.globals.json) {
    ctx.io.stdout(`${JSON.stringify(rows)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) ctx.io.stdout("no hooks\n");
  for (const r of rows) {
    if (r.status === "skipped") {
      ctx.io.stdout(`skipped      ${r.source}: ${r.why}\n`);
      continue;
    }
    ctx.io.stdout(
      `${r.status.padEnd(11)}  ${r.event.padEnd(9)}  ${r.name}  [${r.format}, ${r.match}]  ${r.source}${r.why ? ` — ${r.why}` : ""}\n`,
    );
  }
  return EXIT.ok;
}
