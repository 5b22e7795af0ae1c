/**
 * @module cli/commands/replay
 * `toolgate replay [FILE]`: prints a saved session readably (no FILE: the newest one in
 * `.toolgate/sessions/`). FILE may also be a session id. `--json` prints the records as a JSON array.
 */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { readTranscript, renderTranscript, sessionsDir } from "../../loop/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";

export const usage = "toolgate replay [FILE|SESSION_ID]";

export async function runReplay(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true });
  if (positionals.length > 1) throw new UsageError(`usage: ${usage}`);
  const file = await findTranscript(ctx, positionals[0]);
  let records: Awaited<ReturnType<typeof readTranscript>>;
  try {
    records = await readTranscript(file);
  } catch (error) {
    throw new UsageError(`cannot read the transcript: ${(error as Error).message}`);
  }
  if (ctx.globals.json) ctx.io.stdout(`${JSON.stringify(records)}\n`);
  else ctx.io.stdout(renderTranscript(records));
  return EXIT.ok;
}

async function findTranscript(ctx: CliContext, given: string | undefined): Promise<string> {
  const dir = sessionsDir(ctx.root);
  if (given === undefined) {
    let names: string[] = [];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith(".jsonl"));
    } catch {
      // no sessions yet
    }
    if (names.length === 0) throw new UsageError(`no saved sessions in ${dir}`);
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(dir, n))).mtimeMs })));
    dated.sort((a, b) => b.t - a.t || (a.n < b.n ? 1 : -1));
    return join(dir, dated[0]!.n);
  }
  for (const candidate of [resolve(ctx.io.cwd, given), join(dir, given), join(dir, `${given}.jsonl`)]) {
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // try the next
    }
  }
  throw new UsageError(`no transcript ${given} (looked in the current folder and ${dir})`);
}
