/**
 * @module cli/commands/audit
 * `toolgate audit tail|verify|export`: the project's audit log read back — fleet mode's Redis stream, else the
 * `[audit] file` — or, for `verify FILE`, any exported JSONL file. One chain (core/audit-chain.ts), two stores.
 */
import { randomUUID } from "node:crypto";
import { rename, stat, writeFile } from "node:fs/promises";
import { hostname, userInfo } from "node:os";
import { resolve } from "node:path";
import {
  type AuditEntry,
  type AuditLog,
  describeChain,
  displaySafeJson,
  FileAuditLog,
  verifyChain,
} from "../../core/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.audit;

const OPTIONS = {
  follow: {
    type: "boolean",
    short: "f",
    description: "tail: keep printing records as they are appended, until SIGINT or SIGTERM",
  },
  lines: {
    type: "string",
    short: "n",
    value: "N",
    description: "tail: how many of the last records (default 20)",
  },
  trim: {
    type: "boolean",
    description: "export (fleet mode): remove the exported records from the stream once they are in FILE",
  },
} as const;

export const help: CommandHelp = {
  summary:
    "Reads the audit log back: fleet mode's Redis stream, else [audit] file. verify checks the hash chain and names the first broken link.",
  options: OPTIONS,
  examples: [
    "toolgate audit tail -n 50",
    "toolgate audit tail --follow --json",
    "toolgate audit verify",
    "toolgate audit verify audit-2026-11.jsonl",
    "toolgate audit export audit-2026-11.jsonl --trim",
  ],
};

/** Why there is no log to read. */
export const NO_AUDIT =
  "there is no audit log: set [audit] file in your config (or [fleet] redis for the fleet's stream)";

/** A record for the terminal: time, seq, tool, decision, outcome; no control character. */
function line(entry: AuditEntry): string {
  const r = entry.record;
  if (!r) return `${entry.id}  (not a JSON record)\n`;
  const parts = [
    String(r.time ?? "?"),
    `#${r.seq ?? "-"}`,
    String(r.tool ?? "?"),
    String(r.decision ?? "-"),
    String(r.outcome ?? "?"),
  ];
  if (r.agent) parts.push(`agent ${r.agent}`);
  return `${parts.join("  ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")}\n`;
}

/**
 * Runs `toolgate audit ...`. Exit codes: 0 printed, chain intact, exported; 1 the chain is broken (verify),
 * the log could not be read or written; 2 bad usage, no audit log configured, an export FILE that exists.
 * With `--json`: `tail` one record per line (chain fields included); `verify` the report
 * `{"ok","records","first","last","anchor","unchained","broken":{"id","seq","field","expected","found"}}`;
 * `export` `{"ok","file","records","trimmed"}`.
 */
export async function runAudit(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { io } = ctx;
  let values: ReturnType<typeof parseOptions<typeof OPTIONS>>["values"];
  let sub: string;
  let args: string[];
  try {
    const parsed = parseOptions("toolgate audit", argv, OPTIONS);
    values = parsed.values;
    [sub = "", ...args] = parsed.positionals;
  } catch (error) {
    io.stderr(`toolgate: ${(error as Error).message}\nusage: ${usage}\n`);
    return EXIT.usage;
  }
  const lines = values.lines === undefined ? 20 : Number(values.lines);
  const ok =
    (sub === "tail" && args.length === 0 && !values.trim && Number.isSafeInteger(lines) && lines >= 0) ||
    (sub === "verify" && args.length <= 1 && !values.follow && !values.trim && values.lines === undefined) ||
    (sub === "export" && args.length === 1 && !values.follow && values.lines === undefined);
  if (!ok) {
    io.stderr(`usage: ${usage}\n`);
    return EXIT.usage;
  }
  let log: AuditLog | undefined;
  if (sub === "verify" && args[0] !== undefined) log = new FileAuditLog(resolve(io.cwd, args[0]));
  else log = (await ctx.gate()).auditLog;
  if (!log) {
    io.stderr(`toolgate: ${NO_AUDIT}\n`);
    return EXIT.usage;
  }
  try {
    if (sub === "tail") return await tail(log, ctx, lines, values.follow === true);
    if (sub === "verify") return await verify(log, ctx);
    return await exportLog(log, ctx, resolve(io.cwd, args[0] as string), values.trim === true);
  } catch (error) {
    io.stderr(`toolgate: cannot read ${log.where}: ${(error as Error).message}\n`);
    return EXIT.toolError;
  }
}

async function tail(log: AuditLog, ctx: CliContext, count: number, follow: boolean): Promise<ExitCode> {
  const print = (entry: AuditEntry) =>
    ctx.io.stdout(
      ctx.globals.json
        ? `${displaySafeJson(entry.record ?? { id: entry.id, unreadable: true })}\n`
        : line(entry),
    );
  for (const entry of count > 0 ? await log.tail(count) : []) print(entry);
  if (!follow) return EXIT.ok;
  const stop = new AbortController();
  const end = () => stop.abort();
  process.once("SIGINT", end);
  process.once("SIGTERM", end);
  try {
    // On stderr, so that --json's stdout holds records only: what follows is appended after this line.
    await log.follow(print, stop.signal, () => ctx.io.stderr(`toolgate: following ${log.where}\n`));
  } finally {
    process.off("SIGINT", end);
    process.off("SIGTERM", end);
  }
  return EXIT.ok;
}

async function verify(log: AuditLog, ctx: CliContext): Promise<ExitCode> {
  const report = await verifyChain(log.entries(), await log.trimmed());
  if (ctx.globals.json) ctx.io.stdout(`${JSON.stringify(report)}\n`);
  else (report.ok ? ctx.io.stdout : ctx.io.stderr)(`${describeChain(report, log.where)}\n`);
  return report.ok ? EXIT.ok : EXIT.toolError;
}

/** The log to FILE as JSONL (the file log's fields), written whole or not at all; `--trim` removes it after. */
async function exportLog(log: AuditLog, ctx: CliContext, file: string, trim: boolean): Promise<ExitCode> {
  const { io } = ctx;
  if (
    await stat(file).then(
      () => true,
      () => false,
    )
  ) {
    io.stderr(`toolgate: ${file} exists: export writes a new file, never over one\n`);
    return EXIT.usage;
  }
  const trimmer = (log as { trim?: (count: number, file: string, by: string) => Promise<number | undefined> })
    .trim;
  if (trim && !trimmer) {
    io.stderr(`toolgate: --trim is for fleet mode's stream; ${log.where} keeps every record\n`);
    return EXIT.usage;
  }
  let records: number;
  if (trim && trimmer) {
    // The trim writes FILE itself, flushed to disk, before it removes exactly what it wrote.
    const removed = await trimmer.call(
      log,
      Number.POSITIVE_INFINITY,
      file,
      `${userInfo().username}@${hostname()}`,
    );
    if (removed === undefined) {
      io.stderr("toolgate: another worker is trimming the audit stream now; try again in a minute\n");
      return EXIT.toolError;
    }
    records = removed;
  } else {
    const out: string[] = [];
    for await (const entry of log.entries()) if (entry.record) out.push(`${displaySafeJson(entry.record)}\n`);
    records = out.length;
    const temp = `${file}.${randomUUID()}.tmp`;
    await writeFile(temp, out.join(""), { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  }
  if (ctx.globals.json) io.stdout(`${JSON.stringify({ ok: true, file, records, trimmed: trim })}\n`);
  else
    io.stdout(
      `exported ${records} record(s) to ${file}${trim ? ", and removed them from the stream" : ""}\n`,
    );
  return EXIT.ok;
}
