/**
 * @module sandbox/incomplete
 * When the check after a command cannot finish (something it could not look at or move), what it would have
 * caught there is not known safe, and the command's own output is no place to say so (the command writes it
 * and can bury the line). So the check fails closed: the person is told on toolgate's own error output, and
 * every later command in that workspace is refused, naming what to look at and how to go on. The mark is a
 * file in the user's state folder (one per workspace root), so every toolgate process refuses; kept in memory
 * when there is no state folder.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTime } from "./process-start.js";

/** Why commands in a workspace are refused, and the file to delete once the person has looked. */
export interface IncompleteMark {
  root: string;
  at: string;
  problems: string[];
  /** The mark's file; undefined when kept in memory (no state folder). */
  file?: string;
}

const inMemory = new Map<string, IncompleteMark>();

function rootId(root: string): string {
  return createHash("sha256").update(root).digest("hex").slice(0, 16);
}

function markFile(stateDir: string, root: string): string {
  return join(stateDir, "sandbox", `incomplete-${rootId(root)}.json`);
}

/** A check owed: the process that runs a command, which must finish the check after it. */
interface OwedCheck {
  root: string;
  at: string;
  pid: number;
  started: string;
}

let owedCount = 0;

/**
 * Records, before a command starts, that the check after it is owed; call the result once that check has
 * finished (complete or not: an incomplete one leaves its own mark). A toolgate that dies meanwhile (killed, out
 * of memory, a crash a command provoked) leaves the record, and every later command in the workspace is refused
 * until the person has looked: the check is never skipped by ending the process that owes it.
 */
export function oweCheck(stateDir: string | undefined, roots: readonly string[]): () => void {
  const started = processStartTime(process.pid);
  if (!stateDir || started === undefined) return () => {};
  const files: string[] = [];
  const at = new Date().toISOString();
  for (const root of roots) {
    const file = join(stateDir, "sandbox", `owed-${rootId(root)}-${process.pid}-${++owedCount}.json`);
    const owed: OwedCheck = { root, at, pid: process.pid, started };
    try {
      mkdirSync(join(stateDir, "sandbox"), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${JSON.stringify(owed)}\n`, { mode: 0o600 });
      files.push(file);
    } catch {
      // No state folder to write: nothing outlives this process to be refused by.
    }
  }
  return () => {
    for (const file of files.splice(0)) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone (the person deleted it).
      }
    }
  };
}

/** The first check owed in `root` by a process that is gone, as a mark. */
function abandonedCheck(stateDir: string, root: string): IncompleteMark | undefined {
  const prefix = `owed-${rootId(root)}-`;
  let names: string[];
  try {
    names = readdirSync(join(stateDir, "sandbox")).filter((n) => n.startsWith(prefix) && n.endsWith(".json"));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const file = join(stateDir, "sandbox", name);
    let owed: OwedCheck;
    try {
      owed = JSON.parse(readFileSync(file, "utf8")) as OwedCheck;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // Settled meanwhile.
      return { root, at: "", problems: [`the record ${file} cannot be read`], file };
    }
    if (processStartTime(owed.pid) === owed.started) continue; // Still running its command.
    const problem =
      `toolgate (process ${owed.pid}) ended before the check after a command it started at ${owed.at} had ` +
      "finished (killed, out of memory, or crashed): what that command left was never checked";
    return { root, at: owed.at, problems: [problem], file };
  }
  return undefined;
}

/** Marks `roots` (text paths) as checked incompletely, for every later command (written whole, or not at all). */
export function markIncomplete(
  stateDir: string | undefined,
  roots: readonly string[],
  problems: string[],
): void {
  const at = new Date().toISOString();
  for (const root of roots) {
    const mark: IncompleteMark = { root, at, problems };
    inMemory.set(root, mark);
    if (!stateDir) continue;
    const file = markFile(stateDir, root);
    try {
      mkdirSync(join(stateDir, "sandbox"), { recursive: true, mode: 0o700 });
      writeFileSync(`${file}.tmp`, `${JSON.stringify(mark, null, 2)}\n`, { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    } catch {
      // No state folder to write: this process still refuses (in memory).
    }
  }
}

/** The mark of the first of `roots` (text paths) whose check did not finish, if any. */
export function incompleteMark(
  stateDir: string | undefined,
  roots: readonly string[],
): IncompleteMark | undefined {
  for (const root of roots) {
    if (stateDir) {
      const file = markFile(stateDir, root);
      try {
        const mark = JSON.parse(readFileSync(file, "utf8")) as IncompleteMark;
        return { ...mark, file };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT")
          return { root, at: "", problems: [`the mark ${file} cannot be read`], file };
        // Deleted by the person: the workspace is theirs again (unless a check is owed by a process gone).
        inMemory.delete(root);
        const abandoned = abandonedCheck(stateDir, root);
        if (abandoned) return abandoned;
        continue;
      }
    }
    const mark = inMemory.get(root);
    if (mark) return mark;
  }
  return undefined;
}

/** Why a command is refused, in words: what the check could not do, what to look at, how to go on. */
export function describeIncomplete(mark: IncompleteMark): string {
  const shown = mark.problems.slice(0, 3).join("; ");
  const more = mark.problems.length > 3 ? ` (and ${mark.problems.length - 3} more)` : "";
  const goOn = mark.file
    ? `then delete ${mark.file} to run commands there again`
    : "then start toolgate again to run commands there";
  return (
    `commands in ${mark.root} are refused: the check after an earlier command could not finish (${shown}${more}), ` +
    `so something that command left may run later. Look at those paths and remove what you did not make, ${goOn}`
  );
}
