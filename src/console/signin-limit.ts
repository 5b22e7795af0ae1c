/**
 * @module console/signin-limit
 * How many wrong tokens the console takes before it stops listening, per peer — never machine-wide, so no
 * user can lock another out (red team F3, P2): after `freeFailures` failures from one peer, that peer waits
 * 1 s, then 2 s, 4 s … (at most `maxWaitMs`) before its next try. A peer is who the kernel says connected
 * (console/peer-uid.ts): a local user by its uid, whatever address it connects from (any of 127.0.0.0/8
 * and the machine's own addresses will do, so counting by address would be easy to dodge), and other
 * users never get this far; a remote address by itself, an IPv6 one by its /64 (one host holds a whole
 * /64). Where the kernel cannot be asked (not Linux), every loopback address counts as one peer. While a
 * peer is waiting, a sign-in is refused without looking at the token — a right guess then is no better
 * than a wrong one. A success clears that peer's count. A count is forgotten `maxWaitMs` after its wait
 * ends with no further failure.
 */
import type { Peer } from "./peer-uid.js";
import { isLoopbackAddress } from "./peer-uid.js";

/** The request binding (Hono `c.env`) that carries the sign-in key of the request's peer (console/serve.ts). */
export const PEER_BINDING = "toolgatePeer";

/** The key a peer's failures are counted under (see the module's comment). */
export function signInKey(peer: Exclude<Peer, { refused: string }>): string {
  if ("uid" in peer) return `uid ${peer.uid}`;
  return isLoopbackAddress(peer.remote) ? "loopback" : limitKey(peer.remote);
}

/** Options of {@link SignInLimit}. */
export interface SignInLimitOptions {
  /** Failures from one peer before it must wait (default 5). */
  freeFailures?: number;
  /** The first wait, doubled with each further failure (default 1 s). */
  firstWaitMs?: number;
  /** The longest wait, and how long a count is kept without failures (default 15 minutes). */
  maxWaitMs?: number;
  now?: () => number;
}

interface Count {
  failures: number;
  until: number;
}

/** Peers tracked at most; past this, idle ones are dropped. */
const MAX_PEERS = 10_000;

/** What a count is kept under: an IPv6 address by its first four groups (/64), anything else as it is. */
export function limitKey(address: string): string {
  if (!address.includes(":") || isLoopbackAddress(address)) return address;
  const halves = address.toLowerCase().split("::");
  const head = (halves[0] ?? "").split(":").filter(Boolean);
  const tail = halves.length === 2 ? (halves[1] ?? "").split(":").filter(Boolean) : [];
  const groups = [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Sign-in failures per peer (keys from {@link signInKey}). */
export class SignInLimit {
  private readonly peers = new Map<string, Count>();
  private readonly freeFailures: number;
  private readonly firstWaitMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: SignInLimitOptions = {}) {
    this.freeFailures = options.freeFailures ?? 5;
    this.firstWaitMs = options.firstWaitMs ?? 1_000;
    this.maxWaitMs = options.maxWaitMs ?? 15 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds the peer of `key` must still wait before a sign-in is looked at (0: go ahead). */
  waitMs(key: string): number {
    const now = this.now();
    return Math.max(0, (this.current(this.peers.get(key), now)?.until ?? 0) - now);
  }

  /** A wrong token from the peer of `key`. */
  failed(key: string): void {
    const now = this.now();
    if (this.peers.size >= MAX_PEERS) this.dropIdle(now);
    const count = this.bump(this.current(this.peers.get(key), now), now);
    if (this.peers.size < MAX_PEERS || this.peers.has(key)) this.peers.set(key, count);
  }

  /** The right token from the peer of `key`. */
  succeeded(key: string): void {
    this.peers.delete(key);
  }

  /** The count, unless it has been idle long enough to forget. */
  private current(count: Count | undefined, now: number): Count | undefined {
    return count && now < count.until + this.maxWaitMs ? count : undefined;
  }

  private bump(count: Count | undefined, now: number): Count {
    const failures = (count?.failures ?? 0) + 1;
    // The `freeFailures`-th failure sets the first wait; each one after doubles it.
    const over = failures - this.freeFailures;
    const wait = over < 0 ? 0 : Math.min(this.maxWaitMs, this.firstWaitMs * 2 ** over);
    return { failures, until: now + wait };
  }

  private dropIdle(now: number): void {
    for (const [key, count] of this.peers) if (!this.current(count, now)) this.peers.delete(key);
  }
}
