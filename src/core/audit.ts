/**
 * @module core/audit
 * Audit records: one JSON line per call (time, tool, argument digest, decision, rule, outcome, duration),
 * hash-chained (core/audit-chain.ts). Arguments are digested, not logged, so secrets in them do not land in
 * the file.
 */

import { createHash } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { canonicalJson } from "../utils/index.js";
import { type ChainedAuditRecord, chainRecord } from "./audit-chain.js";
import { displaySafeJson } from "./confirmation.js";
import type { AuditRecord, AuditSink } from "./types.js";

/** sha256 over JSON with sorted keys, so equal arguments give equal digests. */
export function argsDigest(args: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(args)).digest("hex")}`;
}

/**
 * Appends records to a JSONL file (created with its directory on first write), each chained to the one
 * before (core/audit-chain.ts). Several processes may share the file: each append reads the last line's
 * link and writes under a lock beside the file (`<file>.lock`), so the chain stays one line of records. A
 * record that cannot be written is reported through `onError` (the first failure, then every change of
 * cause), never thrown into the call it describes.
 */
export class FileAuditSink implements AuditSink {
  private ready = false;
  private lastError: string | undefined;
  /** The head this sink last wrote, and the file's size just after: unchanged size, no need to read it. */
  private head: { seq: number; hash: string; size: number } | undefined;
  constructor(
    readonly path: string,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  write(record: AuditRecord): void {
    try {
      if (!this.ready) {
        mkdirSync(dirname(this.path), { recursive: true });
        this.ready = true;
      }
      withAppendLock(this.path, () => this.append(record));
      this.lastError = undefined;
    } catch (error) {
      const message = `cannot write the audit log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      if (message !== this.lastError) this.onError(message);
      this.lastError = message;
    }
  }

  private append(record: AuditRecord): void {
    const fd = openSync(this.path, "a+", 0o600);
    try {
      const size = fstatSync(fd).size;
      const head = this.head?.size === size ? this.head : lastLink(fd, size);
      // A tool name a model made up is recorded as sent, escaped so that reading the log shows it plainly.
      const line = `${displaySafeJson(chainRecord(record, head))}\n`;
      const chained = JSON.parse(line) as ChainedAuditRecord;
      writeSync(fd, line);
      this.head = { seq: chained.seq, hash: chained.hash, size: size + Buffer.byteLength(line) };
    } finally {
      closeSync(fd);
    }
  }
}

/** The chain fields of the file's last line (`undefined`: empty, or written before the chain began). */
function lastLink(fd: number, size: number): { seq: number; hash: string } | undefined {
  let window = 4_096;
  for (;;) {
    const length = Math.min(size, window);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString("utf8").replace(/\n+$/, "");
    const cut = text.lastIndexOf("\n");
    if (cut < 0 && length < size) {
      window *= 4;
      continue;
    }
    const line = text.slice(cut + 1);
    if (line === "") return undefined;
    try {
      const last = JSON.parse(line) as Partial<ChainedAuditRecord>;
      if (typeof last.seq === "number" && typeof last.hash === "string")
        return { seq: last.seq, hash: last.hash };
    } catch {
      // A line that does not parse is left for `verify` to name; the chain starts again after it.
    }
    return undefined;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Loaded at the first append: a gate that audits nothing to a file (and `toolgate call`) never loads it. */
const lockLibrary = () =>
  createRequire(import.meta.url)("proper-lockfile") as typeof import("proper-lockfile");

/**
 * Runs `append` holding `<file>.lock` (proper-lockfile: a directory; one left by a dead process is taken
 * over after 10 s). Synchronous, like the append: the lock is held for one read and one write.
 */
function withAppendLock(path: string, append: () => void): void {
  const deadline = Date.now() + 20_000;
  let release: (() => void) | undefined;
  while (!release) {
    try {
      release = lockLibrary().lockSync(path, { realpath: false, stale: 10_000 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED" || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  try {
    append();
  } finally {
    release();
  }
}

/** Keeps records in memory (tests, hosts that forward them elsewhere). */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];
  write(record: AuditRecord): void {
    this.records.push(record);
  }
}
