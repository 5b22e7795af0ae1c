/**
 * @module cli/chat/find-transcript
 * Finds a saved session: a path, a session id, or (none given) the newest one in `.toolgate/sessions/` —
 * for `replay` and `chat --resume`.
 */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { sessionsDir } from "../../loop/index.js";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";

/**
 * The transcript file for `given` (a path or a session id); without one, the newest whose name holds
 * `label` (e.g. "-chat" for chat sessions), else the newest of all.
 * @example const file = await findTranscript(ctx, undefined, "-chat");
 */
export async function findTranscript(
  ctx: CliContext,
  given: string | undefined,
  label = "",
): Promise<string> {
  const dir = sessionsDir(ctx.root);
  if (given === undefined) {
    let names: string[] = [];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith(".jsonl") && n.includes(label));
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
