/**
 * @module console/signin-limit
 * How many wrong tokens the console takes before it stops listening: after `freeFailures` failures from one
 * remote address, that address waits 1 s, then 2 s, 4 s … (at most `maxWaitMs`) before its next try; the
 * same over all loopback addresses together after `freeGlobalFailures` (any of 127.0.0.0/8 will do, so a
 * per-address count alone is easy to dodge there). Only the console's own user reaches it on loopback
 * (console/peer-uid.ts), so the loopback count is not another user's to run up; a remote address never adds
 * to it, so nobody on the network can lock out the owner at the console's machine (red team F3), and an IPv6
 * address counts by its /64 (one host holds a whole /64). While an address is waiting, a sign-in is refused
 * without looking at the token — a right guess then is no better than a wrong one. A success clears that
 * address's count (and the loopback one). A count is forgotten `maxWaitMs` after its wait ends with no
 * further failure.
 */
import { isLoopbackAddress } from "./peer-uid.js";

/** Options of {@link SignInLimit}. */
export interface SignInLimitOptions {
  /** Failures from one address before it must wait (default 5). */
  freeFailures?: number;
  /** Failures from all loopback addresses together before every loopback sign-in must wait (default 20). */
  freeGlobalFailures?: number;
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

/** Addresses tracked at most; past this, idle ones are dropped (the global count still holds). */
const MAX_ADDRESSES = 10_000;

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

/** Sign-in failures per remote address, and over loopback in all. */
export class SignInLimit {
  private readonly addresses = new Map<string, Count>();
  private global: Count = { failures: 0, until: 0 };
  private readonly freeFailures: number;
  private readonly freeGlobalFailures: number;
  private readonly firstWaitMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: SignInLimitOptions = {}) {
    this.freeFailures = options.freeFailures ?? 5;
    this.freeGlobalFailures = options.freeGlobalFailures ?? 20;
    this.firstWaitMs = options.firstWaitMs ?? 1_000;
    this.maxWaitMs = options.maxWaitMs ?? 15 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds `address` must still wait before a sign-in is looked at (0: go ahead). */
  waitMs(address: string): number {
    const now = this.now();
    const own = this.current(this.addresses.get(limitKey(address)), now);
    const all = isLoopbackAddress(address) ? this.current(this.global, now) : undefined;
    return Math.max(0, (own?.until ?? 0) - now, (all?.until ?? 0) - now);
  }

  /** A wrong token from `address`. */
  failed(address: string): void {
    const now = this.now();
    const key = limitKey(address);
    if (this.addresses.size >= MAX_ADDRESSES) this.dropIdle(now);
    const own = this.bump(this.current(this.addresses.get(key), now), this.freeFailures, now);
    if (this.addresses.size < MAX_ADDRESSES || this.addresses.has(key)) this.addresses.set(key, own);
    if (isLoopbackAddress(address))
      this.global = this.bump(this.current(this.global, now), this.freeGlobalFailures, now);
  }

  /** The right token from `address`. */
  succeeded(address: string): void {
    this.addresses.delete(limitKey(address));
    if (isLoopbackAddress(address)) this.global = { failures: 0, until: 0 };
  }

  /** The count, unless it has been idle long enough to forget. */
  private current(count: Count | undefined, now: number): Count | undefined {
    return count && now < count.until + this.maxWaitMs ? count : undefined;
  }

  private bump(count: Count | undefined, free: number, now: number): Count {
    const failures = (count?.failures ?? 0) + 1;
    // The `free`-th failure sets the first wait; each one after doubles it.
    const over = failures - free;
    const wait = over < 0 ? 0 : Math.min(this.maxWaitMs, this.firstWaitMs * 2 ** over);
    return { failures, until: now + wait };
  }

  private dropIdle(now: number): void {
    for (const [address, count] of this.addresses)
      if (!this.current(count, now)) this.addresses.delete(address);
  }
}
