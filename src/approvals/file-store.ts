/**
 * @module approvals/file-store
 * The approval store as a folder: every toolgate process of one user on one machine shares it, with no
 * server. Each ask is `<id>.json` (written to a temporary file, synced, renamed into place); its settlement
 * is `<id>.settled.json`, created with `link(2)` from a complete temporary file, which fails when the name
 * exists — so the first answer, withdrawal or expiry wins across processes, and a reader never sees half a
 * decision. Wake-ups come from `fs.watch` on the folder, with polling when the watch cannot be set up.
 */
import { randomUUID } from "node:crypto";
import { constants, type FSWatcher, watch as watchFolder } from "node:fs";
import { link, open, readdir, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  type ApprovalAnswer,
  type ApprovalAsk,
  type ApprovalFilter,
  type ApprovalRecord,
  type ApprovalSettlement,
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
import { ensurePrivateFolder } from "./private-folder.js";

/** Options of {@link FileApprovalStore}. */
export interface FileApprovalStoreOptions {
  /** The folder holding the asks (created 0700 when missing; refused when others could change it: private-folder.ts). */
  dir: string;
  /** The clock, ms since the epoch (default `Date.now`); tests pass their own. */
  now?: () => number;
  /** How long a settled ask is kept for `get`, `list` and "already answered" replies (default 7 days). */
  keepSettledMs?: number;
  /** Poll period when `fs.watch` is unavailable (default 500 ms). */
  pollMs?: number;
  /** Use polling even where `fs.watch` works (tests of the fallback). */
  forcePolling?: boolean;
  /** The asking process's project (its first root), written on each ask it publishes. */
  project?: string;
}

/** This process, as its asks name it: host, pid and start time (a pid is reused; a start time is not). */
const THIS_PROCESS = `${hostname()} pid ${process.pid} since ${new Date(Date.now() - Math.round(process.uptime() * 1000)).toISOString()}`;

/** What `<id>.settled.json` holds. */
interface SettledFile {
  state: ApprovalState;
  settled: ApprovalSettlement;
}

type Listener = (record: ApprovalRecord) => void;

// Ids are the store's own UUIDs; anything else is unknown (and never becomes a path).
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RECORD_FILE = /^([0-9a-f-]{36})(\.settled)?\.json$/;

/** A new file only: never an existing one, never through a symlink. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** How many records `readAll` reads at once. */
const READERS = 16;

const isMissing = (error: unknown) => (error as { code?: string }).code === "ENOENT";

/**
 * Asks in a folder, shared by every process that opens the same folder.
 * @example
 * const store = new FileApprovalStore({ dir: join(userStateDir(), "approvals") });
 * const ask = await store.publish({ callId: "c1", tool: "shell", details, timeoutMs: 60_000 });
 * // another process: await new FileApprovalStore({ dir }).answer(ask.id, { approved: true, by: "alice" })
 */
export class FileApprovalStore implements ApprovalStore {
  readonly shared: boolean = true;
  readonly dir: string;
  private readonly now: () => number;
  private readonly keepSettledMs: number;
  private readonly pollMs: number;
  private readonly forcePolling: boolean;
  private readonly project: string | undefined;
  private readonly listeners = new Set<Listener>();
  /** The last state each listener-visible id was reported in; a state is reported once, never backwards. */
  private readonly seen = new Map<string, ApprovalState>();
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;

  constructor(options: FileApprovalStoreOptions) {
    this.dir = options.dir;
    this.now = options.now ?? Date.now;
    this.keepSettledMs = options.keepSettledMs ?? 7 * 86_400_000;
    this.pollMs = options.pollMs ?? 500;
    this.forcePolling = options.forcePolling ?? false;
    this.project = options.project;
    ensurePrivateFolder(this.dir);
  }

  async publish(ask: ApprovalAsk): Promise<ApprovalRecord> {
    const record: ApprovalRecord = {
      ...pendingApprovalRecord(ask, this.now()),
      process: THIS_PROCESS,
      ...(this.project === undefined ? {} : { project: this.project }),
    };
    const temp = await this.writeTemp(record);
    await rename(temp, this.path(record.id));
    this.report(record);
    return record;
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const record = await this.read(id);
    if (record?.state === "pending" && this.now() >= record.expiresAt) return this.expireRecord(record);
    return record;
  }

  answer(id: string, answer: ApprovalAnswer): Promise<SettleResult> {
    const settlement = {
      by: answer.by,
      ...(answer.approved ? { scope: answer.scope ?? "once" } : {}),
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    } as const;
    return this.settle(id, answer.approved ? "approved" : "denied", settlement);
  }

  withdraw(id: string): Promise<SettleResult> {
    return this.settle(id, "cancelled", { by: SETTLED_BY_TOOLGATE, reason: "its call was cancelled" });
  }

  async list(filter?: ApprovalFilter): Promise<ApprovalRecord[]> {
    const records: ApprovalRecord[] = [];
    for (const record of await this.readAll()) {
      const current =
        record.state === "pending" && this.now() >= record.expiresAt
          ? await this.expireRecord(record)
          : record;
      if (matchesApprovalFilter(current, filter)) records.push(current);
    }
    return records;
  }

  async expire(): Promise<ApprovalRecord[]> {
    const expired: ApprovalRecord[] = [];
    for (const record of await this.readAll()) {
      if (record.state !== "pending" || this.now() < record.expiresAt) continue;
      const result = await this.commit(record, "expired", expiry(record));
      if (result.ok) expired.push(result.record);
    }
    return expired;
  }

  wait(id: string, options: { signal?: AbortSignal } = {}): Promise<ApprovalRecord> {
    return waitForSettlement(this, id, { now: this.now, ...options });
  }

  watch(listener: Listener): () => void {
    this.listeners.add(listener);
    this.startWatching();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatching();
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.stopWatching();
  }

  private path(id: string, settled = false): string {
    return join(this.dir, `${id}${settled ? ".settled" : ""}.json`);
  }

  /** Writes `value` to a fresh temporary file in the folder, synced, mode 0600; returns its path. */
  private async writeTemp(value: unknown): Promise<string> {
    const temp = join(this.dir, `.tmp-${randomUUID()}`);
    const handle = await open(temp, CREATE_NEW, 0o600);
    try {
      await handle.writeFile(JSON.stringify(value));
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  private async readJson<T>(path: string): Promise<T | undefined> {
    try {
      // O_NOFOLLOW: a symlink in the folder is not a record (it could point at any file of the user).
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        return JSON.parse(await handle.readFile("utf8")) as T;
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new Error(`approval store ${this.dir}: cannot read ${path}: ${(error as Error).message}`);
    }
  }

  /** The ask as stored: its published record with its settlement, if any. */
  private async read(id: string): Promise<ApprovalRecord | undefined> {
    if (!ID.test(id)) return undefined;
    const stored = await this.readJson<ApprovalRecord>(this.path(id));
    // The file's name is the only source of its id (a record's own `id` field could name another file), and
    // a record without the shape of one is no ask at all.
    if (!isRecordShaped(stored)) return undefined;
    const record: ApprovalRecord = { ...stored, id };
    const settled = await this.readJson<SettledFile>(this.path(id, true));
    return settled ? { ...record, state: settled.state, settled: settled.settled } : record;
  }

  /** Every stored ask, oldest first; settled ones past `keepSettledMs` are removed on the way. */
  private async readAll(): Promise<ApprovalRecord[]> {
    const ids = new Set<string>();
    for (const name of await readdir(this.dir)) {
      const match = RECORD_FILE.exec(name);
      if (match && !match[2]) ids.add(match[1] as string);
    }
    const records: ApprovalRecord[] = [];
    // Several reads in flight: one at a time, a folder of 1,000 asks took seconds on a busy machine.
    const queue = [...ids];
    const reader = async () => {
      for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
        // One unreadable record (not JSON, not a file) leaves the others listed.
        const record = await this.read(id).catch(() => undefined);
        if (!record) continue;
        if (record.settled && record.settled.at < this.now() - this.keepSettledMs) {
          await this.remove(id);
          continue;
        }
        records.push(record);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READERS, queue.length) }, reader));
    return records.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  private async remove(id: string): Promise<void> {
    for (const path of [this.path(id), this.path(id, true)]) {
      await unlink(path).catch((error) => {
        if (!isMissing(error)) throw error;
      });
    }
  }

  private async expireRecord(record: ApprovalRecord): Promise<ApprovalRecord> {
    const result = await this.commit(record, "expired", expiry(record));
    return result.record as ApprovalRecord;
  }

  /** An answer or withdrawal: past the ask's expiry it becomes the expiry (and loses). */
  private async settle(
    id: string,
    state: ApprovalState,
    settlement: Omit<ApprovalSettlement, "at">,
  ): Promise<SettleResult> {
    const record = await this.read(id);
    if (!record) return { ok: false, message: unknownApprovalMessage(id) };
    if (record.state === "pending" && this.now() >= record.expiresAt) {
      const expired = await this.expireRecord(record);
      return { ok: false, record: expired, message: settledMessage(expired) as string };
    }
    return this.commit(record, state, settlement);
  }

  /**
   * The one transition out of `pending`: link a complete settlement file to `<id>.settled.json`. The link
   * fails when the name exists, so exactly one settler in any process wins; the others read the winner.
   */
  private async commit(
    record: ApprovalRecord,
    state: ApprovalState,
    settlement: Omit<ApprovalSettlement, "at">,
  ): Promise<SettleResult> {
    const lost = async (): Promise<SettleResult> => {
      const winner = await this.read(record.id);
      if (!winner) return { ok: false, message: unknownApprovalMessage(record.id) };
      this.report(winner);
      return { ok: false, record: winner, message: settledMessage(winner) as string };
    };
    if (record.state !== "pending") return lost();
    const file: SettledFile = { state, settled: { ...settlement, at: this.now() } };
    const temp = await this.writeTemp(file);
    try {
      await link(temp, this.path(record.id, true));
    } catch (error) {
      if ((error as { code?: string }).code === "EEXIST") return lost();
      throw error;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    const won: ApprovalRecord = { ...record, state, settled: file.settled };
    this.report(won);
    return { ok: true, record: structuredClone(won) };
  }

  /** Tells the listeners about `record` unless they already heard of this state (or a later one). */
  private report(record: ApprovalRecord): void {
    if (this.listeners.size === 0) return;
    const before = this.seen.get(record.id);
    if (before === record.state || (before !== undefined && before !== "pending")) return;
    this.seen.set(record.id, record.state);
    for (const listener of [...this.listeners]) {
      try {
        listener(structuredClone(record));
      } catch {
        // A failing listener is its own problem; the state is already committed.
      }
    }
  }

  /** A file of the folder changed: read the ask it belongs to and report it. */
  private changed(name: string | null): void {
    const id = name && RECORD_FILE.exec(name)?.[1];
    if (!id) {
      if (name === null) this.rescan();
      return;
    }
    this.read(id).then(
      (record) => record && this.report(record),
      () => undefined,
    );
  }

  private rescan(): void {
    this.readAll().then(
      (records) => {
        for (const record of records) this.report(record);
      },
      () => undefined,
    );
  }

  private startWatching(): void {
    if (this.watcher || this.poller) return;
    if (!this.forcePolling) {
      try {
        this.watcher = watchFolder(this.dir, { persistent: false }, (_, name) => this.changed(name));
        this.watcher.on("error", () => {
          this.watcher?.close();
          this.watcher = undefined;
          if (this.listeners.size > 0) this.startPolling();
        });
        return;
      } catch {
        // No inotify watch left, or a file system without change events: poll instead.
      }
    }
    this.startPolling();
  }

  private startPolling(): void {
    this.poller = setInterval(() => this.rescan(), this.pollMs);
    this.poller.unref();
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    clearInterval(this.poller);
    this.poller = undefined;
    this.seen.clear();
  }
}

function expiry(record: ApprovalRecord): Omit<ApprovalSettlement, "at"> {
  return { by: SETTLED_BY_TOOLGATE, reason: `no answer within ${record.expiresAt - record.createdAt} ms` };
}

function isRecordShaped(value: unknown): value is ApprovalRecord {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Partial<ApprovalRecord>;
  return typeof r.createdAt === "number" && typeof r.expiresAt === "number" && typeof r.state === "string";
}
