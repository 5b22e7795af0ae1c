/**
 * @module core/audit
 * Audit records: one JSON line per call (time, tool, argument digest, decision, rule, outcome, duration).
 * Arguments are digested, not logged, so secrets in them do not land in the file.
 */
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { canonicalJson } from "../utils/index.js";
import { displaySafeJson } from "./confirmation.js";
import type { AuditRecord, AuditSink } from "./types.js";

/** sha256 over JSON with sorted keys, so equal arguments give equal digests. */
export function argsDigest(args: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(args)).digest("hex")}`;
}

/**
 * Appends records to a JSONL file (created with its directory on first write). A record that cannot be
 * written is reported through `onError` (the first failure, then every change of cause), never thrown into
 * the call it describes.
 */
export class FileAuditSink implements AuditSink {
  private ready = false;
  private lastError: string | undefined;
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
      // A tool name a model made up is recorded as sent, escaped so that reading the log shows it plainly.
      appendFileSync(this.path, `${displaySafeJson(record)}\n`, { mode: 0o600 });
      this.lastError = undefined;
    } catch (error) {
      const message = `cannot write the audit log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      if (message !== this.lastError) this.onError(message);
      this.lastError = message;
    }
  }
}

/** Keeps records in memory (tests, hosts that forward them elsewhere). */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];
  write(record: AuditRecord): void {
    this.records.push(record);
  }
}
