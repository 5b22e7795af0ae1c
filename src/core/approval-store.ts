/**
 * @module core/approval-store
 * The default approval store: asks held in this process's memory (so only this process can answer them),
 * settled exactly once, expired by the waiter's timer or by any read past their expiry. Also the sentences
 * every store uses to say why an answer lost.
 */
import { randomUUID } from "node:crypto";
import type {
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalSettlement,
  ApprovalState,
  ApprovalStore,
  SettleResult,
} from "./types.js";

/** The `by` of a settlement toolgate made itself: an expiry, a withdrawn call, no one to ask. */
export const SETTLED_BY_TOOLGATE = "toolgate";

/** setTimeout's largest delay; a longer wait re-arms. */
const MAX_TIMER_MS = 2_147_483_647;

/** Options of {@link InProcessApprovalStore}. */
export interface InProcessApprovalStoreOptions {
  /** The clock, ms since the epoch (default `Date.now`); tests pass their own. */
  now?: () => number;
  /** How many settled asks are kept for `get`, `list` and "already answered" replies (default 1,000). */
  keepSettled?: number;
}

/**
 * Why an answer to `record` lost, in the words every store uses: who answered and when, or that it expired
 * or was withdrawn. `undefined` for a record that is still pending.
 * @example settledMessage(record) // 'approval 1f0c… was already approved by alice at 2025-01-02T10:00:00.000Z'
 */
export function settledMessage(record: ApprovalRecord): string | undefined {
  const { id, state, settled } = record;
  if (state === "pending" || !settled) return undefined;
  const at = new Date(settled.at).toISOString();
  if (state === "expired")
    return `approval ${id} already expired at ${at} (no answer within ${record.expiresAt - record.createdAt} ms)`;
  if (state === "cancelled") return `approval ${id} was withdrawn at ${at} (its call was cancelled)`;
  return `approval ${id} was already ${state} by ${settled.by} at ${at}`;
}

/** The reply to an answer for an id no store knows. */
export function unknownApprovalMessage(id: string): string {
  return `no approval with id ${JSON.stringify(id)}`;
}

/** A new pending record for `ask`, published at `createdAt`, with a fresh random id. */
export function pendingApprovalRecord(ask: ApprovalAsk, createdAt: number): ApprovalRecord {
  return {
    id: randomUUID(),
    callId: ask.callId,
    tool: ask.tool,
    details: structuredClone(ask.details),
    ...(ask.agent === undefined ? {} : { agent: ask.agent }),
    ...(ask.argsDigest === undefined ? {} : { argsDigest: ask.argsDigest }),
    ...(ask.always === undefined ? {} : { always: structuredClone(ask.always) }),
    createdAt,
    expiresAt: createdAt + Math.max(0, ask.timeoutMs),
    state: "pending",
  };
}

/** Whether `record` passes `filter`. */
export function matchesApprovalFilter(record: ApprovalRecord, filter: ApprovalFilter = {}): boolean {
  const states = filter.state === undefined ? undefined : ([] as ApprovalState[]).concat(filter.state);
  if (states && !states.includes(record.state)) return false;
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.agent !== undefined && record.agent !== filter.agent) return false;
  return true;
}

/**
 * Asks in this process's memory. Not shared: nobody outside this process can answer them, so an ask with no
 * local answerer is refused at once. Settling is synchronous, so the first answer wins without a lock.
 * @example
 * const store = new InProcessApprovalStore();
 * const ask = await store.publish({ callId: "c1", tool: "shell", details, timeoutMs: 60_000 });
 * await store.answer(ask.id, { approved: true, by: "alice" });
 * (await store.wait(ask.id)).state; // "approved"
 */
export class InProcessApprovalStore implements ApprovalStore {
  readonly shared: boolean = false;
  private readonly records = new Map<string, ApprovalRecord>();
  private readonly settledIds: string[] = [];
  private readonly watchers = new Set<(record: ApprovalRecord) => void>();
  private readonly now: () => number;
  private readonly keepSettled: number;

  constructor(options: InProcessApprovalStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.keepSettled = options.keepSettled ?? 1_000;
  }

  async publish(ask: ApprovalAsk): Promise<ApprovalRecord> {
    const createdAt = this.now();
    const record = pendingApprovalRecord(ask, createdAt);
    this.records.set(record.id, record);
    this.notify(record);
    return structuredClone(record);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const record = this.current(id);
    return record && structuredClone(record);
  }

  async answer(id: string, answer: ApprovalAnswer): Promise<SettleResult> {
    const settlement: Omit<ApprovalSettlement, "at"> = {
      by: answer.by,
      ...(answer.approved ? { scope: answer.scope ?? "once" } : {}),
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    };
    return this.settle(id, answer.approved ? "approved" : "denied", settlement);
  }

  async withdraw(id: string): Promise<SettleResult> {
    return this.settle(id, "cancelled", { by: SETTLED_BY_TOOLGATE, reason: "its call was cancelled" });
  }

  async list(filter?: ApprovalFilter): Promise<ApprovalRecord[]> {
    this.expireOverdue();
    return [...this.records.values()]
      .filter((record) => matchesApprovalFilter(record, filter))
      .map((record) => structuredClone(record));
  }

  async expire(): Promise<ApprovalRecord[]> {
    return this.expireOverdue().map((record) => structuredClone(record));
  }

  wait(id: string, options: { signal?: AbortSignal } = {}): Promise<ApprovalRecord> {
    const { signal } = options;
    return new Promise<ApprovalRecord>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const stop = () => {
        clearTimeout(timer);
        unwatch();
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        stop();
        reject(signal?.reason);
      };
      const check = () => {
        const record = this.current(id);
        if (!record) {
          stop();
          reject(new Error(unknownApprovalMessage(id)));
        } else if (record.state !== "pending") {
          stop();
          resolve(structuredClone(record));
        } else {
          // Due: `current` expires it on the next look. Not yet: look again when it will be.
          clearTimeout(timer);
          timer = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(0, record.expiresAt - this.now())));
        }
      };
      // Subscribe first, then read: an answer given before this wait began is in the state read below.
      const unwatch = this.watch((record) => {
        if (record.id === id && record.state !== "pending") check();
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      check();
    });
  }

  watch(listener: (record: ApprovalRecord) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** The live record, expired first when it is overdue. */
  private current(id: string): ApprovalRecord | undefined {
    const record = this.records.get(id);
    if (record?.state === "pending" && this.now() >= record.expiresAt) this.expireRecord(record);
    return record;
  }

  private expireOverdue(): ApprovalRecord[] {
    const now = this.now();
    const expired: ApprovalRecord[] = [];
    for (const record of this.records.values()) {
      if (record.state === "pending" && now >= record.expiresAt) expired.push(this.expireRecord(record));
    }
    return expired;
  }

  private expireRecord(record: ApprovalRecord): ApprovalRecord {
    const reason = `no answer within ${record.expiresAt - record.createdAt} ms`;
    return this.commit(record, "expired", { by: SETTLED_BY_TOOLGATE, reason });
  }

  /** The one transition out of `pending`; everything that settles an ask comes through here. */
  private settle(id: string, state: ApprovalState, settlement: Omit<ApprovalSettlement, "at">): SettleResult {
    const record = this.current(id);
    if (!record) return { ok: false, message: unknownApprovalMessage(id) };
    if (record.state !== "pending") {
      return { ok: false, record: structuredClone(record), message: settledMessage(record) as string };
    }
    return { ok: true, record: structuredClone(this.commit(record, state, settlement)) };
  }

  private commit(
    record: ApprovalRecord,
    state: ApprovalState,
    settlement: Omit<ApprovalSettlement, "at">,
  ): ApprovalRecord {
    record.state = state;
    record.settled = { ...settlement, at: this.now() };
    this.notify(record);
    this.settledIds.push(record.id);
    while (this.settledIds.length > this.keepSettled) this.records.delete(this.settledIds.shift() as string);
    return record;
  }

  private notify(record: ApprovalRecord): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher(structuredClone(record));
      } catch {
        // A failing watcher is its own problem; the state is already committed.
      }
    }
  }
}
