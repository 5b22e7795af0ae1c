/**
 * @module mcp/http-sessions
 * The sessions of `toolgate mcp --http`: which client token each belongs to, whether it is active (a request
 * in flight or a stream open) and since when it has been idle. A session idle longer than the idle limit
 * expires; an active one never does. New sessions are admitted under two caps — overall and per client
 * token — and admission first reclaims every expired session, so a new client is served as soon as one has
 * expired (a client that reconnects without closing cannot lock the others out for longer than that).
 */

/** How long sessions live and how many there may be. */
export interface SessionLimits {
  /** A session with nothing in flight and no stream open for this long (ms) expires. */
  idleMs: number;
  /** Most sessions at once, all tokens together. */
  maxSessions: number;
  /** Most sessions at once for one client token. */
  maxPerToken: number;
  /** The clock (ms); tests pass their own. Default `performance.now`. */
  now?: () => number;
}

/** One session: its value, its client token, its open requests and when it was last used. */
export interface SessionEntry<T> {
  readonly value: T;
  readonly token: number;
  active: number;
  lastSeen: number;
}

/** Why a new session cannot start now; `retryAfterS` when an idle session will expire by then. */
export interface Refusal {
  reason: string;
  retryAfterS?: number;
}

/** A place held for a session being initialised: it counts against the caps until committed or cancelled. */
export interface Reservation<T> {
  /** The session exists under `id` (then `begin` its initialising request, still in flight). */
  commit(id: string, value: T): SessionEntry<T>;
  cancel(): void;
}

/**
 * The session table. `expire` is called (once) for each session that expired; the table has already
 * forgotten it by then.
 * @example
 * const table = new SessionTable<Transport>({ idleMs: 120_000, maxSessions: 64, maxPerToken: 64 }, (t) => t.close());
 */
export class SessionTable<T> {
  private readonly entries = new Map<string, SessionEntry<T>>();
  /** Places held per token for sessions being initialised. */
  private readonly pending = new Map<number, number>();
  private readonly now: () => number;

  constructor(
    readonly limits: SessionLimits,
    private readonly expire: (value: T) => void,
  ) {
    this.now = limits.now ?? (() => performance.now());
  }

  /** Sessions open now. */
  get size(): number {
    return this.entries.size;
  }

  /** The session `id`, when it exists and belongs to `token` (another token's session is not found). */
  get(id: string, token: number): SessionEntry<T> | undefined {
    const entry = this.entries.get(id);
    return entry && entry.token === token ? entry : undefined;
  }

  /** A request on `entry` started; call the returned function (once) when its response has closed. */
  begin(entry: SessionEntry<T>): () => void {
    entry.active++;
    entry.lastSeen = this.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.active--;
      entry.lastSeen = this.now();
    };
  }

  /** Forgets the session `id` (closed by its client or its transport). */
  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Every session of this table, forgotten at once (the server is closing). */
  drain(): T[] {
    const values = [...this.entries.values()].map((e) => e.value);
    this.entries.clear();
    return values;
  }

  /** Expires every idle session past the limit; returns how many. */
  sweep(): number {
    const now = this.now();
    const expired = [...this.entries].filter(
      ([, e]) => e.active === 0 && now - e.lastSeen >= this.limits.idleMs,
    );
    for (const [id] of expired) this.entries.delete(id);
    for (const [, e] of expired) this.expire(e.value);
    return expired.length;
  }

  /**
   * Holds a place for a new session of `token`, after reclaiming every expired session; a {@link Refusal}
   * when a cap is still reached.
   */
  reserve(token: number): Reservation<T> | Refusal {
    this.sweep();
    const { maxSessions, maxPerToken } = this.limits;
    const held = [...this.pending.values()].reduce((n, k) => n + k, 0);
    const mine = [...this.entries.values()].filter((e) => e.token === token);
    if (this.entries.size + held >= maxSessions)
      return this.refusal(`too many sessions (at most ${maxSessions})`, [...this.entries.values()]);
    if (mine.length + (this.pending.get(token) ?? 0) >= maxPerToken)
      return this.refusal(`too many sessions for this client token (at most ${maxPerToken})`, mine);
    this.pending.set(token, (this.pending.get(token) ?? 0) + 1);
    let open = true;
    const release = () => {
      if (!open) return false;
      open = false;
      const left = (this.pending.get(token) ?? 1) - 1;
      if (left > 0) this.pending.set(token, left);
      else this.pending.delete(token);
      return true;
    };
    return {
      commit: (id, value) => {
        release();
        const entry: SessionEntry<T> = { value, token, active: 0, lastSeen: this.now() };
        this.entries.set(id, entry);
        return entry;
      },
      cancel: () => {
        release();
      },
    };
  }

  /** A refusal saying when the first of `among` that is idle now will have expired. */
  private refusal(reason: string, among: SessionEntry<T>[]): Refusal {
    const idle = among.filter((e) => e.active === 0).map((e) => e.lastSeen + this.limits.idleMs - this.now());
    if (idle.length === 0) return { reason };
    return { reason, retryAfterS: Math.max(1, Math.ceil(Math.min(...idle) / 1000)) };
  }
}
