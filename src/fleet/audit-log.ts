/**
 * @module fleet/audit-log
 * The project's audit stream read back (`toolgate audit tail|verify|export` in fleet mode): entries oldest
 * first, each named by its stream id; a follow on its own connection (XREAD BLOCK); what was trimmed; and
 * the trim itself — the oldest records exported to a JSONL file first, then removed, never the other way.
 */
import { randomUUID } from "node:crypto";
import { open } from "node:fs/promises";
import type { AuditEntry, AuditLog, TrimmedRange } from "../core/index.js";
import { displaySafeJson } from "../core/index.js";
import { TRIM_SCRIPT } from "./audit-scripts.js";
import { type FleetClient, runScript } from "./connect.js";
import { type FleetKeys, fleetKeys } from "./keys.js";

type StreamEntry = { id: string; message: Record<string, string> };

/** A stream entry as a record: the call's record with its chain fields (what the file log holds per line). */
export function streamRecord(message: Record<string, string>): Record<string, unknown> | undefined {
  let body: unknown;
  try {
    body = JSON.parse(message.record ?? "");
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const seq = Number(message.seq);
  return {
    ...body,
    seq: Number.isNaN(seq) ? message.seq : seq,
    prev: message.prev,
    digest: message.digest,
    hash: message.hash,
  };
}

const entryOf = (e: StreamEntry): AuditEntry => ({ id: e.id, record: streamRecord(e.message) });

/** Options of {@link RedisAuditLog}. */
export interface RedisAuditLogOptions {
  client: FleetClient;
  project: string;
  /** Entries read per round trip (default 1,000). */
  page?: number;
}

/**
 * The audit stream of one project.
 * @example const report = await verifyChain(log.entries(), await log.trimmed());
 */
export class RedisAuditLog implements AuditLog {
  readonly where: string;
  private readonly keys: FleetKeys;
  private readonly client: FleetClient;
  private readonly page: number;
  constructor(options: RedisAuditLogOptions) {
    this.client = options.client;
    this.keys = fleetKeys(options.project);
    this.page = options.page ?? 1_000;
    this.where = `the Redis stream ${this.keys.audit}`;
  }

  async *entries(): AsyncIterable<AuditEntry> {
    // Up to the last entry when reading began: appends meanwhile do not make the walk endless.
    const last = ((await this.client.xRevRange(this.keys.audit, "+", "-", { COUNT: 1 })) ?? [])[0]?.id;
    if (!last) return;
    let from = "-";
    for (;;) {
      const batch = (await this.client.xRange(this.keys.audit, from, last, {
        COUNT: this.page,
      })) as StreamEntry[];
      for (const e of batch) yield entryOf(e);
      if (batch.length < this.page) return;
      from = `(${(batch.at(-1) as StreamEntry).id}`;
    }
  }

  async tail(count: number): Promise<AuditEntry[]> {
    const newest = ((await this.client.xRevRange(this.keys.audit, "+", "-", { COUNT: count })) ??
      []) as StreamEntry[];
    return newest.reverse().map(entryOf);
  }

  /** Waits on a connection of its own (a blocking read would hold up the shared one). */
  async follow(
    onEntry: (entry: AuditEntry) => void,
    signal: AbortSignal,
    onReady?: () => void,
  ): Promise<void> {
    let from = ((await this.client.xRevRange(this.keys.audit, "+", "-", { COUNT: 1 })) ?? [])[0]?.id ?? "0-0";
    const reader = this.client.duplicate() as FleetClient;
    reader.on("error", () => undefined);
    await reader.connect();
    const stop = () => reader.destroy();
    signal.addEventListener("abort", stop, { once: true });
    onReady?.();
    try {
      while (!signal.aborted) {
        const replies = await reader
          .xRead({ key: this.keys.audit, id: from }, { BLOCK: 1_000, COUNT: 100 })
          .catch((error: unknown) => {
            if (signal.aborted) return null;
            throw error;
          });
        for (const reply of (replies as { messages: StreamEntry[] }[] | null) ?? [])
          for (const e of reply.messages) {
            from = e.id;
            onEntry(entryOf(e));
          }
      }
    } finally {
      signal.removeEventListener("abort", stop);
      if (reader.isOpen) reader.destroy();
    }
  }

  async trimmed(): Promise<TrimmedRange | undefined> {
    const t = await this.client.hGetAll(this.keys.auditTrimmed);
    if (!t.hash) return undefined;
    return {
      seq: Number(t.seq),
      hash: t.hash,
      ...(t.to ? { to: t.to } : {}),
      ...(t.by ? { by: t.by } : {}),
      ...(t.at ? { at: t.at } : {}),
    };
  }

  /**
   * Exports the oldest `count` records (all with `Infinity`) to `file` (appended, JSONL, flushed to disk),
   * then removes exactly those from the stream. Holds the trim lock throughout; returns the number removed,
   * or `undefined` when another worker holds the lock. Throws, removing nothing, when the export fails.
   */
  async trim(count: number, file: string, by: string): Promise<number | undefined> {
    const token = randomUUID();
    const locked = await this.client.set(this.keys.auditTrimLock, token, { NX: true, PX: 60_000 });
    if (locked !== "OK") return undefined;
    try {
      const entries: StreamEntry[] = [];
      let from = "-";
      while (entries.length < count) {
        const want = Math.min(this.page, count - entries.length);
        const batch = (await this.client.xRange(this.keys.audit, from, "+", {
          COUNT: want,
        })) as StreamEntry[];
        entries.push(...batch);
        if (batch.length < want) break;
        from = `(${(batch.at(-1) as StreamEntry).id}`;
      }
      const last = entries.at(-1);
      if (!last) return 0;
      const handle = await open(file, "a", 0o600);
      try {
        await handle.appendFile(
          entries.map((e) => `${displaySafeJson(streamRecord(e.message) ?? e.message)}\n`).join(""),
        );
        await handle.sync();
      } finally {
        await handle.close();
      }
      const removed = (await runScript(
        this.client,
        TRIM_SCRIPT,
        [this.keys.audit, this.keys.auditTrimmed, this.keys.auditTrimLock],
        [token, last.id, last.message.seq ?? "", last.message.hash ?? "", file, by, new Date().toISOString()],
      )) as number;
      if (removed < 0)
        throw new Error(
          removed === -1
            ? "the trim lock expired before the exported records were removed (nothing removed; they are in the file twice if trimmed again)"
            : `record ${last.id} changed while it was exported (nothing removed)`,
        );
      return removed;
    } finally {
      // Released by the script on success; on failure, only if it is still ours.
      await runScript(this.client, RELEASE_SCRIPT, [this.keys.auditTrimLock], [token]).catch(() => undefined);
    }
  }
}

const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
