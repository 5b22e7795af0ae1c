/**
 * @module fleet/approval-store
 * The approval store on Redis: asks are hashes every worker and every `toolgate approvals` can read and
 * answer; a Lua script settles each exactly once (fleet/approval-scripts.ts). Waiters subscribe, then read
 * the state, so an answer given before they began waiting is never missed; pub/sub only wakes them, and a
 * waiter whose ask comes due writes the expiry itself, through the same script.
 */
import {
  type ApprovalAnswer,
  type ApprovalAsk,
  type ApprovalFilter,
  type ApprovalRecord,
  type ApprovalState,
  type ApprovalStore,
  matchesApprovalFilter,
  pendingApprovalRecord,
  SETTLED_BY_TOOLGATE,
  type SettleResult,
  settledMessage,
  unknownApprovalMessage,
  waitForSettlement,
} from "../core/index.js";
import { PUBLISH_SCRIPT, SETTLE_SCRIPT } from "./approval-scripts.js";
import { type FleetClient, runScript } from "./connect.js";
import { type FleetKeys, fleetKeys } from "./keys.js";
import { PolicyOverlay } from "./overlay.js";
import { beginRun, claimGraceMs, claimInterrupted, DEFAULT_CLAIM_IDLE_MS, DEFAULT_WORKER } from "./runs.js";

/** Options of {@link RedisApprovalStore}. */
export interface RedisApprovalStoreOptions {
  /** A connected client; the store uses it and a duplicate for its subscription. */
  client: FleetClient;
  /** The key namespace. */
  project: string;
  /** The clock, ms since the epoch (default `Date.now`). */
  now?: () => number;
  /** How long a settled ask is kept for `get`, `list` and "already answered" replies (default 7 days). */
  keepSettledMs?: number;
  /** Approximate cap of the approvals stream (default 10,000 entries). */
  streamLength?: number;
  /** Whether `close()` also closes `client` (default true). */
  ownsClient?: boolean;
  /** This process's name, written into every ask it publishes and every run it starts. */
  worker?: string;
  /** How long a started run's entry may sit unrefreshed before a claim marks it interrupted (default 30 s). */
  claimIdleMs?: number;
}

type Listener = (record: ApprovalRecord) => void;

/** Reads of `list` and `expire` in flight at once (see `readAll`). */
const READ_AT_ONCE = 128;

/** Builds the record from the hash's fields. */
function recordFrom(base: string, state: string, settled: string, run = ""): ApprovalRecord {
  const record = JSON.parse(base) as ApprovalRecord;
  record.state = state as ApprovalState;
  if (settled) record.settled = JSON.parse(settled);
  if (run) {
    const { entry: _entry, ...shown } = JSON.parse(run);
    record.run = shown;
  }
  return record;
}

/**
 * Asks in Redis, shared by every process of the project.
 * @example
 * const store = new RedisApprovalStore({ client: await connectFleet({ url }), project: "shop" });
 * const ask = await store.publish({ callId: "c1", tool: "shell", details, timeoutMs: 60_000 });
 */
export class RedisApprovalStore implements ApprovalStore {
  readonly shared: boolean = true;
  /** The project's shared policy overlay, which "always" approvals add to. */
  readonly overlay: PolicyOverlay;
  private readonly client: FleetClient;
  private readonly keys: FleetKeys;
  private readonly now: () => number;
  private readonly keepSettledMs: number;
  private readonly streamLength: number;
  private readonly ownsClient: boolean;
  private readonly worker: string | undefined;
  private readonly claimIdleMs: number;
  private claiming: NodeJS.Timeout | undefined;
  private stopClaiming: () => void = () => undefined;
  private readonly listeners = new Set<Listener>();
  private subscriber: Promise<FleetClient> | undefined;
  private subscriberClient: FleetClient | undefined;

  constructor(options: RedisApprovalStoreOptions) {
    this.client = options.client;
    this.keys = fleetKeys(options.project);
    this.overlay = new PolicyOverlay(this.client, this.keys);
    this.now = options.now ?? Date.now;
    this.keepSettledMs = options.keepSettledMs ?? 7 * 86_400_000;
    this.streamLength = options.streamLength ?? 10_000;
    this.ownsClient = options.ownsClient ?? true;
    this.worker = options.worker;
    this.claimIdleMs = options.claimIdleMs ?? DEFAULT_CLAIM_IDLE_MS;
  }

  async publish(ask: ApprovalAsk): Promise<ApprovalRecord> {
    await this.subscribed();
    const createdAt = this.now();
    const record = pendingApprovalRecord(ask, createdAt);
    if (this.worker !== undefined) record.worker = this.worker;
    const { state: _state, ...base } = record;
    const k = this.keys;
    await runScript(
      this.client,
      PUBLISH_SCRIPT,
      [k.approval(record.id), k.approvals, k.pending, k.approvalStream],
      [record.id, JSON.stringify(base), createdAt, record.expiresAt, k.approvalChannel, this.streamLength],
    );
    return record;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    return (await this.settle(id, "read")).record;
  }

  /**
   * An approval with scope `always` also adds its rule (this tool, exactly these arguments) to the project's
   * policy overlay, in the same commit (fleet/overlay.ts applies it).
   */
  async answer(id: string, answer: ApprovalAnswer): Promise<SettleResult> {
    const always = answer.approved && answer.scope === "always";
    return this.settleResult(
      id,
      answer.approved ? "approved" : "denied",
      {
        by: answer.by,
        ...(answer.approved ? { scope: answer.scope ?? "once" } : {}),
        ...(answer.reason === undefined ? {} : { reason: answer.reason }),
      },
      always,
    );
  }

  /** Marks an approved ask's call started by this worker (fleet/runs.ts); rejects for any other ask. */
  begin(id: string): Promise<() => Promise<void>> {
    return beginRun(this.client, this.keys, id, this.worker ?? DEFAULT_WORKER, this.now, this.claimIdleMs);
  }

  /** Marks the calls of runs whose workers died (idle past the claim idle time) `interrupted`; their ids. */
  claimInterrupted(): Promise<string[]> {
    return claimInterrupted(
      this.client,
      this.keys,
      this.worker ?? DEFAULT_WORKER,
      this.now,
      this.claimIdleMs,
    );
  }

  /**
   * Claims every `min(1 s, idle / 4)` until closed, so a dead worker's run is marked within the claim idle
   * time + 1 s (a quarter of the idle time leaves room for a busy machine's delays when the idle time is short). A failed claim (the server away) is tried again at the next tick; after the connection comes
   * back, claims wait out the grace of fleet/runs.ts `claimGraceMs` (live workers refresh their runs first).
   */
  startClaiming(): void {
    if (this.claiming) return;
    let back = 0;
    const onReady = () => {
      back = Date.now();
    };
    this.client.on("ready", onReady);
    const tick = () => {
      if (!this.client.isReady || Date.now() - back < claimGraceMs(this.claimIdleMs)) return;
      void this.claimInterrupted().catch(() => undefined);
    };
    const timer = setInterval(tick, Math.min(1_000, Math.max(10, Math.floor(this.claimIdleMs / 4))));
    timer.unref();
    this.claiming = timer;
    this.stopClaiming = () => {
      clearInterval(timer);
      this.client.off("ready", onReady);
    };
  }

  async withdraw(id: string): Promise<SettleResult> {
    return this.settleResult(id, "cancelled", { by: SETTLED_BY_TOOLGATE, reason: "its call was cancelled" });
  }

  async list(filter?: ApprovalFilter): Promise<ApprovalRecord[]> {
    const ids = await this.client.zRange(this.keys.approvals, 0, -1);
    const read = await this.readAll(ids);
    const gone = ids.filter((_, i) => read[i]?.outcome === "missing");
    // Settled records past their keeping time have expired away: drop their ids from the index.
    if (gone.length > 0) await this.client.zRem(this.keys.approvals, gone);
    return read
      .map((r) => r.record)
      .filter((r): r is ApprovalRecord => r !== undefined && matchesApprovalFilter(r, filter));
  }

  async expire(): Promise<ApprovalRecord[]> {
    const due = await this.client.zRangeByScore(this.keys.pending, "-inf", this.now());
    const read = await this.readAll(due);
    return read.filter((r) => r.outcome === "expired").map((r) => r.record as ApprovalRecord);
  }

  async wait(id: string, options: { signal?: AbortSignal } = {}): Promise<ApprovalRecord> {
    options.signal?.throwIfAborted();
    // The subscription first: a wait fails (closed) when it cannot be made, rather than sleeping to the expiry.
    await this.ready();
    return waitForSettlement(this, id, { now: this.now, ...options });
  }

  watch(listener: Listener): () => void {
    const stop = this.subscribe(listener);
    this.ready().catch(() => undefined); // No subscription, no wake-ups; waits still read the state.
    return stop;
  }

  async close(): Promise<void> {
    this.stopClaiming();
    this.listeners.clear();
    const subscriber = this.subscriber;
    const connection = this.subscriberClient;
    this.subscriber = undefined;
    this.subscriberClient = undefined;
    // A subscription still connecting (the server is away) is dropped, not waited for.
    if (connection && !connection.isReady) connection.destroy();
    else if (connection?.isOpen) await connection.close().catch(() => undefined);
    await subscriber?.catch(() => undefined);
    if (this.ownsClient && this.client.isOpen) {
      if (this.client.isReady) await this.client.close();
      else this.client.destroy();
    }
  }

  /**
   * Waits for a subscription this store is making, so a watcher added just before this handle's own
   * publish or answer sees it (Redis delivers to subscribers in the order it runs the PUBLISHes).
   */
  private async subscribed(): Promise<void> {
    await this.subscriber?.catch(() => undefined);
  }

  /** Adds a listener at once; its wake-ups start when the subscription is ready. */
  private subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Subscribes to the project's channel, once. Events published while the subscription was being made are
   * caught up from the approvals stream (every event is an entry there too), skipping any also received.
   */
  private ready(): Promise<FleetClient> {
    if (!this.subscriber) {
      const made: Promise<FleetClient> = (async () => {
        const stream = this.keys.approvalStream;
        const last = await this.client.xRevRange(stream, "+", "-", { COUNT: 1 });
        const since = last?.[0]?.id ?? "0-0";
        const subscriber = this.client.duplicate() as FleetClient;
        this.subscriberClient = subscriber;
        try {
          // The first failure fails the subscription (a wait then fails closed) instead of retrying forever.
          await new Promise<void>((resolve, reject) => {
            subscriber.once("error", reject);
            subscriber.connect().then(() => resolve(), reject);
          });
          subscriber.on("error", () => undefined); // reconnects on its own; waits read the state again
          const received = new Set<string>();
          let catchingUp = true;
          await subscriber.subscribe(this.keys.approvalChannel, (message: string) => {
            const at = message.indexOf("\n");
            const entry = message.slice(0, at);
            if (catchingUp) received.add(entry);
            this.deliver(message.slice(at + 1));
          });
          for (const { id, message } of (await this.client.xRange(stream, `(${since}`, "+")) ?? []) {
            if (!received.has(id) && typeof message.record === "string") this.deliver(message.record);
          }
          catchingUp = false;
          return subscriber;
        } catch (error) {
          if (this.subscriberClient === subscriber) this.subscriberClient = undefined;
          subscriber.destroy();
          throw error;
        }
      })();
      this.subscriber = made;
      // Failed (the server was away): the next wait or watch subscribes again.
      made.catch(() => {
        if (this.subscriber === made) this.subscriber = undefined;
      });
    }
    return this.subscriber;
  }

  /**
   * Reads every id (expiring the overdue), {@link READ_AT_ONCE} in flight at a time: thousands of scripts
   * sent at once fill the connection, hold up every other call's command behind them and, on a loaded
   * machine, took longer than a client may wait (the soak's final list of 8,000 asks).
   */
  private async readAll(ids: readonly string[]): Promise<{ outcome: string; record?: ApprovalRecord }[]> {
    const read: { outcome: string; record?: ApprovalRecord }[] = [];
    for (let at = 0; at < ids.length; at += READ_AT_ONCE)
      read.push(
        ...(await Promise.all(ids.slice(at, at + READ_AT_ONCE).map((id) => this.settle(id, "read")))),
      );
    return read;
  }

  /** Hands one event (`base \n state \n settlement`) to every listener. */
  private deliver(message: string): void {
    const first = message.indexOf("\n");
    const second = message.indexOf("\n", first + 1);
    const base = message.slice(0, first);
    const state = message.slice(first + 1, second);
    const settled = message.slice(second + 1);
    for (const listener of [...this.listeners]) {
      try {
        listener(recordFrom(base, state, settled));
      } catch {
        // A failing listener is its own problem; the state is already committed.
      }
    }
  }

  private async settleResult(
    id: string,
    state: ApprovalState,
    settlement: Record<string, unknown>,
    always = false,
  ): Promise<SettleResult> {
    await this.subscribed();
    const read = await this.settle(id, "settle", state, settlement, always);
    if (!read.record) return { ok: false, message: unknownApprovalMessage(id) };
    if (read.outcome === "won") return { ok: true, record: read.record };
    return { ok: false, record: read.record, message: settledMessage(read.record) as string };
  }

  /** Runs the settle script: reads `id` (expiring it when due) and, in mode `settle`, settles it. */
  private async settle(
    id: string,
    mode: "read" | "settle",
    state: ApprovalState = "pending",
    settlement: Record<string, unknown> = {},
    always = false,
  ): Promise<{ outcome: string; record?: ApprovalRecord }> {
    const now = this.now();
    const k = this.keys;
    const reply = (await runScript(
      this.client,
      SETTLE_SCRIPT,
      [k.approval(id), k.pending, k.approvalStream, k.overlayRules, k.overlayVersion],
      [
        now,
        mode,
        state,
        JSON.stringify({ ...settlement, at: now }),
        k.approvalChannel,
        id,
        this.keepSettledMs,
        this.streamLength,
        always ? "1" : "",
        typeof settlement.by === "string" ? settlement.by : "",
      ],
    )) as string[];
    const [outcome, base, current, settled, run] = reply;
    if (outcome === "missing" || base === undefined) return { outcome: "missing" };
    return { outcome: outcome as string, record: recordFrom(base, current as string, settled ?? "", run) };
  }
}
