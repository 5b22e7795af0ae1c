/**
 * @module cli/commands/replay
 * `toolgate replay [FILE]`: prints a saved session readably (no FILE: the newest one in
 * `.toolgate/sessions/`). FILE may also be a session id. `--json` prints the records as a JSON array.
 */
import { displaySafeJson, proseSafe } from "../../core/index.js";
import { readTranscript, renderTranscript } from "../../loop/index.js";
import { findTranscript } from "../chat/find-transcript.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { USAGE } from "../usage.js";

const usage = USAGE.replay;

export const help: CommandHelp = {
  summary:
    "Prints a saved chat or run session readably: the newest in .toolgate/sessions/, or the one a file or session id names. --json prints its records as a JSON array.",
  options: {},
  examples: ["toolgate replay", "toolgate replay .toolgate/sessions/2026-01-31T10-00-00-abc.jsonl --json"],
};

export async function runReplay(argv: string[], ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseOptions("toolgate replay", argv, {});
  if (positionals.length > 1) throw new UsageError(`usage: ${usage}`);
  const file = await findTranscript(ctx, positionals[0]);
  let records: Awaited<ReturnType<typeof readTranscript>>;
  try {
    records = await readTranscript(file);
  } catch (error) {
    throw new UsageError(`cannot read the transcript: ${(error as Error).message}`);
  }
  // A transcript is mostly a model's words: nothing in it may drive the terminal that shows it.
  if (ctx.globals.json) ctx.io.stdout(`${displaySafeJson(records)}\n`);
  else ctx.io.stdout(proseSafe(renderTranscript(records)));
  return EXIT.ok;
}
