/**
 * @module core/audit-file-log
 * The JSONL audit file read back (`toolgate audit tail|verify|export` without fleet mode, and any exported
 * file): records oldest first, each named by its line number, and a follow that reads what is appended.
 */
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import type { AuditEntry, TrimmedRange } from "./audit-chain.js";
import type { AuditLog } from "./types.js";

/** A line parsed as a record (`undefined` when it is not a JSON object). */
function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A JSONL audit file. A missing file is an empty log.
 * @example for await (const e of new FileAuditLog("/w/.toolgate/audit.jsonl").entries()) console.log(e.id);
 */
export class FileAuditLog implements AuditLog {
  readonly where: string;
  constructor(
    readonly path: string,
    private readonly pollMs = 200,
  ) {
    this.where = `the audit file ${path}`;
  }

  async *entries(): AsyncIterable<AuditEntry> {
    const size = await stat(this.path).then(
      (s) => s.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return 0;
        throw error;
      },
    );
    if (size === 0) return;
    // Only what was there when reading began: a writer appending meanwhile does not make this endless.
    const lines = createInterface({
      input: createReadStream(this.path, { end: size - 1 }),
      crlfDelay: Infinity,
    });
    let n = 0;
    for await (const line of lines) {
      n++;
      if (line.trim() === "") continue;
      yield { id: `line ${n}`, record: parseLine(line) };
    }
  }

  async tail(count: number): Promise<AuditEntry[]> {
    const kept: AuditEntry[] = [];
    for await (const entry of this.entries()) {
      kept.push(entry);
      if (kept.length > count) kept.shift();
    }
    return kept;
  }

  /** Reads what is appended after now, polling the file's size (a file has no wake-up to wait on). */
  async follow(
    onEntry: (entry: AuditEntry) => void,
    signal: AbortSignal,
    onReady?: () => void,
  ): Promise<void> {
    let offset = await stat(this.path).then(
      (s) => s.size,
      () => 0,
    );
    let line = await this.lineCount(offset);
    onReady?.();
    let partial = "";
    while (!signal.aborted) {
      const size = await stat(this.path).then(
        (s) => s.size,
        () => 0,
      );
      if (size > offset) {
        const handle = await open(this.path, "r");
        try {
          const buffer = Buffer.alloc(size - offset);
          await handle.read(buffer, 0, buffer.length, offset);
          offset = size;
          const parts = (partial + buffer.toString("utf8")).split("\n");
          partial = parts.pop() ?? "";
          for (const text of parts) {
            line++;
            if (text.trim() !== "") onEntry({ id: `line ${line}`, record: parseLine(text) });
          }
        } finally {
          await handle.close();
        }
      }
      await delay(this.pollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** A file keeps every record it was given: nothing is trimmed from it. */
  async trimmed(): Promise<TrimmedRange | undefined> {
    return undefined;
  }

  private async lineCount(size: number): Promise<number> {
    if (size === 0) return 0;
    let n = 0;
    for await (const chunk of createReadStream(this.path, { end: size - 1 }))
      for (const byte of chunk as Buffer) if (byte === 10) n++;
    return n;
  }
}
