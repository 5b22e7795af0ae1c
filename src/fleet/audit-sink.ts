/**
 * @module fleet/audit-sink
 * Fleet mode's audit sink: every call's record appended to the project's audit stream, hash-chained by the
 * append script (fleet/audit-scripts.ts). Records go out in the order the calls ended, in batches, one batch
 * at a time, each batch numbered so that one sent again after a lost reply is not appended twice. While Redis
 * is away, records wait in memory (a bounded buffer) and go out in order once it is back; a call that would
 * need one more place than the buffer has is refused before it runs. Nothing is dropped without being said.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { AuditRecord, AuditSink } from "../core/index.js";
import { canonicalRecord, recordDigest } from "../core/index.js";
import { RedisAuditLog } from "./audit-log.js";
import { APPEND_SCRIPT } from "./audit-scripts.js";
import { type FleetClient, runScript } from "./connect.js";
import { type FleetKeys, fleetKeys } from "./keys.js";

/** Records kept in memory while Redis is away, by default. */
export const DEFAULT_AUDIT_BUFFER = 10_000;

/** Options of {@link RedisAuditSink}. */
export interface RedisAuditSinkOptions {
  client: FleetClient;
  project: string;
  /** This process's name (the trim records who exported). */
  worker: string;
  /** Records kept while Redis is away (default 10,000); a call that would need more is refused. */
  buffer?: number;
  /**
   * The stream's longest length. With `archive`, the oldest records past it are exported there and then
   * trimmed; without, appends past it are refused (and wait in the buffer) until someone exports and trims.
   */
  maxLen?: number;
  /** The JSONL file trimmed records are exported to first (absolute path). */
  archive?: string;
  /** Records per append (default 256). */
  batch?: number;
  /** Where failures are said: Redis away, a refused append, a failed trim (each cause once). */
  onError?: (message: string) => void;
}

interface Queued {
  digest: string;
  text: string;
  /** Resolves the write: the record is stored, or buffered while Redis is away. */
  done: () => void;
}

/**
 * The Redis audit sink of one project.
 * @example const sink = new RedisAuditSink({ client, project: "shop", worker: "ci-7" }); await sink.write(r);
 */
export class RedisAuditSink implements AuditSink {
  private readonly keys: FleetKeys;
  private readonly client: FleetClient;
  private readonly writer: string;
  private readonly limit: number;
  private readonly queue: Queued[] = [];
  private reserved = 0;
  private batchNo = 0;
  /** The batch sent and not yet known to be appended: sent again, the same, after a failure. */
  private inFlight: { no: number; count: number } | undefined;
  private flushing: Promise<void> | undefined;
  private away: string | undefined;
  private closed = false;
  readonly log: RedisAuditLog;

  constructor(private readonly options: RedisAuditSinkOptions) {
    this.client = options.client;
    this.keys = fleetKeys(options.project);
    this.writer = `${options.worker}:${randomUUID()}`;
    this.limit = options.buffer ?? DEFAULT_AUDIT_BUFFER;
    this.log = new RedisAuditLog({ client: options.client, project: options.project });
  }

  /** Records waiting to be appended (buffered while Redis is away). */
  get pending(): number {
    return this.queue.length;
  }

  admit(): string | undefined {
    if (this.queue.length + this.reserved < this.limit) {
      this.reserved++;
      return undefined;
    }
    const why = this.away ?? "the server has not taken them yet";
    return `its audit record cannot be kept: ${this.queue.length} records wait for the audit stream ${this.keys.audit} (${why}) and the buffer holds ${this.limit} ([fleet] audit_buffer)`;
  }

  write(record: AuditRecord): Promise<void> {
    if (this.reserved > 0) this.reserved--;
    const text = canonicalRecord(record);
    return new Promise<void>((done) => {
      this.queue.push({ digest: recordDigest(text), text, done });
      if (this.away) done();
      this.kick();
    });
  }

  /** Starts the one flush loop unless it runs (again after it ended, if a record came in meanwhile). */
  private kick(): void {
    if (this.flushing || this.closed) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  /**
   * Waits until every record is appended or `timeoutMs` passed, then stops; records still waiting are said
   * through `onError` with their number (they were never stored).
   */
  async close(timeoutMs = 5_000): Promise<void> {
    const flushed = this.flushing ?? Promise.resolve();
    await Promise.race([flushed, delay(timeoutMs)]);
    this.closed = true;
    if (this.queue.length > 0)
      this.report(
        `${this.queue.length} audit record(s) were never written to ${this.keys.audit}: ${this.away ?? "the server did not take them in time"}`,
      );
    for (const q of this.queue) q.done();
  }

  private async flush(): Promise<void> {
    let pause = 50;
    while (this.queue.length > 0 && !this.closed) {
      if (!this.client.isReady) {
        this.goneAway("Redis is unreachable");
        await delay(pause);
        pause = Math.min(pause * 2, 1_000);
        continue;
      }
      try {
        const outcome = await this.appendBatch();
        if (outcome === "full") {
          this.goneAway(this.fullMessage());
          await delay(pause);
          pause = Math.min(pause * 2, 2_000);
          continue;
        }
        pause = 50;
        if (this.away) this.report(`the audit stream ${this.keys.audit} takes records again`);
        this.away = undefined;
      } catch (error) {
        this.goneAway((error as Error).message);
        await delay(pause);
        pause = Math.min(pause * 2, 1_000);
      }
    }
  }

  /** Sends the batch in flight (or the next one); on success takes it off the queue and trims if due. */
  private async appendBatch(): Promise<"ok" | "full"> {
    this.inFlight ??= { no: ++this.batchNo, count: Math.min(this.queue.length, this.options.batch ?? 256) };
    const { no, count } = this.inFlight;
    const args: (string | number)[] = [no, this.options.maxLen ?? 0, this.options.archive ? "0" : "1"];
    for (const q of this.queue.slice(0, count)) args.push(q.digest, q.text);
    const reply = (await runScript(
      this.client,
      APPEND_SCRIPT,
      [this.keys.audit, this.keys.auditHead, this.keys.auditWriter(this.writer)],
      args,
    )) as [string, string, string, number];
    if (reply[0] === "full") return "full";
    this.inFlight = undefined;
    for (const q of this.queue.splice(0, count)) q.done();
    const { maxLen, archive } = this.options;
    if (maxLen && archive && reply[3] > maxLen)
      await this.log.trim(reply[3] - maxLen, archive, this.options.worker).catch((error: Error) => {
        this.report(
          `the audit stream ${this.keys.audit} was not trimmed (nothing removed): ${error.message}`,
        );
      });
    return "ok";
  }

  private fullMessage(): string {
    return `the audit stream holds its [fleet] audit_max_len of ${this.options.maxLen} records and no audit_archive is set to export older ones to: export and trim it with \`toolgate audit export FILE --trim\``;
  }

  /** Redis is away (or refuses): every waiting write resolves as buffered; the cause is said once. */
  private goneAway(why: string): void {
    if (this.away !== why) this.report(`audit records wait in memory (${this.queue.length} so far): ${why}`);
    this.away = why;
    for (const q of this.queue) q.done();
  }

  private report(message: string): void {
    this.options.onError?.(message);
  }
}
