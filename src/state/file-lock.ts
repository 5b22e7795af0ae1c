/**
 * @module state/file-lock
 * Cross-process lock for a store file: `proper-lockfile` (a `<file>.lock` directory whose mtime the holder
 * keeps fresh), our own wait loop with jittered backoff and a deadline that moves while the lock changes
 * hands, and an in-process queue per file.
 */
import * as fs from "node:fs";
import { mkdir, rmdir, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type lockfileModule from "proper-lockfile";
import { ioError, StateError } from "./errors.js";

/** proper-lockfile refuses stale periods below this (it clamps); we clamp the same way, visibly. */
export const MIN_STALE_MS = 2_000;
/** Default stale period: a lock whose mtime is older than this is taken as left by a dead process. */
export const DEFAULT_STALE_MS = 10_000;

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /**
   * After how long without a refresh a lock counts as abandoned (default 10 s, minimum 2 s). The holder
   * refreshes it every half period, so only a dead (or frozen) holder's lock goes stale.
   */
  staleMs?: number;
  /**
   * How long to wait without progress before failing (default: twice the stale period plus 5 s). Progress
   * is the lock changing hands: while other writers take and release it, a waiter keeps waiting (so many
   * writers on a starved machine queue instead of failing); one holder keeping it this long fails the wait.
   */
  timeoutMs?: number;
}

/** Checks, just before a commit, that we still own the lock; throws `lock_lost` otherwise. */
export type LockCheck = () => void;

// One queue per lock path inside this process: concurrent operations of one process wait here instead of
// polling the file system against each other.
const queues = new Map<string, Promise<unknown>>();

// Lock directories this process holds: removing one of these is an unlock, anything else a stale break.
const held = new Set<string>();
// One file-system adapter per stale period (proper-lockfile caches the mtime precision on the object).
const adapters = new Map<number, object>();

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * Which lock directory is there now: its inode and birth time (a new holder makes a new directory; the
 * inode number alone is reused at once by ext4), or "none". The holder's refreshes change neither.
 */
async function lockIdentity(lockPath: string): Promise<string> {
  try {
    const info = await stat(lockPath);
    return `${info.ino}:${info.birthtimeMs}`;
  } catch {
    return "none";
  }
}

const lockedError = () => Object.assign(new Error("the lock is held"), { code: "ELOCKED" });

/**
 * Breaks a stale lock safely. proper-lockfile alone checks staleness and then removes the directory; two
 * waiters that both saw the same stale lock could then remove each other's fresh one and both "hold" it.
 * Here the check and the removal happen under a second, short-lived lock (`<lock>.break`), and the
 * staleness is checked again inside it, so a fresh lock is never removed.
 */
async function breakStaleLock(lockPath: string, staleMs: number): Promise<void> {
  const breaker = `${lockPath}.break`;
  try {
    await mkdir(breaker);
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    // Held for microseconds; one this old was left by a process killed while breaking.
    const info = await stat(breaker).catch(() => undefined);
    if (info && info.mtimeMs < Date.now() - staleMs) await rmdir(breaker).catch(() => undefined);
    throw lockedError();
  }
  try {
    const info = await stat(lockPath).catch((error: { code?: string }) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (info === undefined) return;
    if (info.mtimeMs >= Date.now() - staleMs) throw lockedError();
    await rmdir(lockPath);
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

function adapterFor(staleMs: number): object {
  let adapter = adapters.get(staleMs);
  if (!adapter) {
    adapter = {
      ...fs,
      rmdir(path: string, done: (error: NodeJS.ErrnoException | null) => void) {
        if (held.has(path)) fs.rmdir(path, done);
        else breakStaleLock(path, staleMs).then(() => done(null), done);
      },
    };
    adapters.set(staleMs, adapter);
  }
  return adapter;
}

/** The lock directory of a store file. */
export function lockPathFor(file: string): string {
  return `${resolve(file)}.lock`;
}

/**
 * Runs `fn` while holding the cross-process lock of `file` (which need not exist yet). Waits with jittered
 * exponential backoff (1 ms doubling to 50 ms) until `timeoutMs` passes with the lock in the same hands; a
 * lock left by a killed process is broken once it is older than the stale period.
 * @example await withFileLock("/p/.toolgate/state/memory.json", {}, async (check) => { ...; check(); ... });
 */
export async function withFileLock<R>(
  file: string,
  options: FileLockOptions,
  fn: (check: LockCheck) => Promise<R>,
): Promise<R> {
  const target = resolve(file);
  const previous = queues.get(target) ?? Promise.resolve();
  const run = previous.then(
    () => lockedRun(target, options, fn),
    () => lockedRun(target, options, fn),
  );
  const tail = run.catch(() => undefined);
  queues.set(target, tail);
  try {
    return await run;
  } finally {
    if (queues.get(target) === tail) queues.delete(target);
  }
}

let lockfileLoaded: Promise<typeof lockfileModule> | undefined;

/** proper-lockfile (and graceful-fs beneath it) loads on the first lock taken, not at start-up. */
function loadLockfile(): Promise<typeof lockfileModule> {
  lockfileLoaded ??= import("proper-lockfile").then((m) => m.default);
  return lockfileLoaded;
}

async function lockedRun<R>(
  target: string,
  options: FileLockOptions,
  fn: (check: LockCheck) => Promise<R>,
): Promise<R> {
  const staleMs = Math.max(options.staleMs ?? DEFAULT_STALE_MS, MIN_STALE_MS);
  const timeoutMs = options.timeoutMs ?? staleMs * 2 + 5_000;
  const lockPath = lockPathFor(target);
  let compromised: Error | undefined;
  let deadline = Date.now() + timeoutMs;
  let lastSeen: string | undefined;
  let delay = 1;
  let release: () => Promise<void>;
  const lockfile = await loadLockfile();
  for (;;) {
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        lockfilePath: lockPath,
        stale: staleMs,
        retries: 0,
        fs: adapterFor(staleMs),
        onCompromised: (error) => {
          compromised = error;
        },
      });
      held.add(lockPath);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "ELOCKED") throw ioError("lock", target, error);
      // The lock changed hands since the last look: others are making progress, so the wait starts over.
      const seen = await lockIdentity(lockPath);
      if (seen !== lastSeen) {
        if (lastSeen !== undefined) deadline = Date.now() + timeoutMs;
        lastSeen = seen;
      }
      if (Date.now() >= deadline) {
        throw new StateError(
          "lock_timeout",
          `timed out after ${timeoutMs} ms waiting for the lock on ${target} (another process holds ${lockPath})`,
          target,
        );
      }
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 50);
    }
  }
  const check: LockCheck = () => {
    if (compromised) {
      throw new StateError(
        "lock_lost",
        `lost the lock on ${target} before saving (${compromised.message}); nothing was written`,
        target,
      );
    }
  };
  try {
    return await fn(check);
  } finally {
    // A compromised lock is already released (and may belong to someone else now): never remove it.
    if (!compromised) await release().catch(() => undefined);
    held.delete(lockPath);
  }
}
