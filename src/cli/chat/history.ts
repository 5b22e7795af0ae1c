/**
 * @module cli/chat/history
 * What was typed at `toolgate chat`'s prompt, kept across sessions in the user state folder
 * (`chat-history.jsonl`: one JSON string per line, oldest first, owner-only): the newest
 * {@link HISTORY_SIZE} entries, each at most {@link MAX_ENTRY_CHARS} characters. Up and down at the prompt
 * recall them. Only a terminal session keeps history; piped input never writes it. The folder is hidden
 * from the sandbox and protected from the file tools, like the other user state.
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { userStateDir } from "../../state/index.js";
import { writeFileAtomic } from "../../workspace/index.js";

/** Entries kept. */
export const HISTORY_SIZE = 500;
/** Longer entries (a large paste) are recalled in the session but not written to the file. */
export const MAX_ENTRY_CHARS = 4000;

/** The history file of the user whose environment is `env`. */
export function historyFile(env: NodeJS.ProcessEnv): string {
  return join(userStateDir({ env }), "chat-history.jsonl");
}

/** The saved entries, oldest first (none when the file is missing or unreadable; bad lines are skipped). */
export async function loadHistory(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = JSON.parse(line);
      if (typeof entry === "string" && entry !== "") entries.push(entry);
    } catch {
      // a torn or foreign line: skipped
    }
  }
  return entries.slice(-HISTORY_SIZE);
}

/**
 * The input history of one chat: entries in memory for the prompt, each new one also added to the file
 * (re-read first, so sessions running side by side keep each other's entries; written whole and renamed
 * into place, so a crash never leaves half a file).
 */
export class InputHistory {
  /** Newest first, as readline's `history` wants them. */
  readonly entries: string[];
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | undefined,
    saved: string[],
    private readonly onError: (message: string) => void,
  ) {
    this.entries = saved.reverse();
  }

  /** Loads the history from `file`; without a file, history lives for this session only. */
  static async open(file: string | undefined, onError: (message: string) => void): Promise<InputHistory> {
    return new InputHistory(file, file ? await loadHistory(file) : [], onError);
  }

  /** Adds what was typed at the prompt (a repeat moves to the front). */
  add(entry: string): void {
    if (entry.trim() === "") return;
    const at = this.entries.indexOf(entry);
    if (at >= 0) this.entries.splice(at, 1);
    this.entries.unshift(entry);
    this.entries.splice(HISTORY_SIZE);
    const file = this.file;
    if (!file || entry.length > MAX_ENTRY_CHARS) return;
    this.writing = this.writing.then(() =>
      save(file, entry).catch((error: Error) => this.onError(`input history not saved: ${error.message}`)),
    );
  }

  /** Waits for pending writes. */
  flush(): Promise<void> {
    return this.writing;
  }
}

async function save(file: string, entry: string): Promise<void> {
  const saved = (await loadHistory(file)).filter((e) => e !== entry);
  saved.push(entry);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const text = saved
    .slice(-HISTORY_SIZE)
    .map((e) => `${JSON.stringify(e)}\n`)
    .join("");
  await writeFileAtomic(file, text, { mode: 0o600 });
}
