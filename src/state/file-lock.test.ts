/** The cross-process lock in one process: waiting, timing out, breaking stale locks (and stale breakers). */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, rmdir, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { lockPathFor, withFileLock } from "./file-lock.js";

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-file-lock-"));
  file = join(dir, "store.json");
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

async function age(path: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(path, then, then);
}

describe("withFileLock", () => {
  it("holds <file>.lock while the function runs and removes it after, also on a throw", async () => {
    const seen = await withFileLock(file, {}, async () => existsSync(lockPathFor(file)));
    expect(seen).toBe(true);
    expect(existsSync(lockPathFor(file))).toBe(false);
    await expect(
      withFileLock(file, {}, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await readdir(dir)).toEqual([]);
  });

  it("runs one process's callers one at a time, in order", async () => {
    const order: string[] = [];
    const job = (name: string) =>
      withFileLock(file, {}, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`${name}-`);
      });
    await Promise.all([job("a"), job("b"), job("c")]);
    expect(order).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
  });

  it("times out on a fresh lock held elsewhere and leaves it alone", async () => {
    await mkdir(lockPathFor(file));
    await expect(withFileLock(file, { timeoutMs: 200 }, async () => "never")).rejects.toMatchObject({
      code: "lock_timeout",
      message: `timed out after 200 ms waiting for the lock on ${file} (another process holds ${file}.lock)`,
    });
    expect(existsSync(lockPathFor(file))).toBe(true);
  });

  it("clamps the stale period to 2 s: a 1 s old lock is not broken even with staleMs 100", async () => {
    await mkdir(lockPathFor(file));
    await age(lockPathFor(file), 1_000);
    await expect(withFileLock(file, { staleMs: 100, timeoutMs: 300 }, async () => 1)).rejects.toMatchObject({
      code: "lock_timeout",
    });
  });

  it("breaks a stale lock at once and leaves no breaker behind", async () => {
    await mkdir(lockPathFor(file));
    await age(lockPathFor(file), 60_000);
    expect(await withFileLock(file, { staleMs: 2_000, timeoutMs: 30_000 }, async () => "got it")).toBe(
      "got it",
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("recovers from a breaker left by a process killed while breaking", async () => {
    await mkdir(lockPathFor(file));
    await mkdir(`${lockPathFor(file)}.break`);
    await age(lockPathFor(file), 60_000);
    await age(`${lockPathFor(file)}.break`, 60_000);
    expect(await withFileLock(file, { staleMs: 2_000, timeoutMs: 30_000 }, async () => "got it")).toBe(
      "got it",
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it("waits while a fresh breaker is at work", async () => {
    await mkdir(lockPathFor(file));
    await mkdir(`${lockPathFor(file)}.break`);
    await age(lockPathFor(file), 60_000);
    await expect(withFileLock(file, { staleMs: 2_000, timeoutMs: 300 }, async () => 1)).rejects.toMatchObject(
      {
        code: "lock_timeout",
      },
    );
    expect(existsSync(lockPathFor(file))).toBe(true);
  });

  // The clock is ours in these two (only Date is faked; timers and the file system are real): what counts
  // is how far the clock moved between two looks of the waiter, not how fast this machine is.
  const realPause = () => new Promise((r) => setTimeout(r, 100));

  it("keeps waiting while the lock changes hands, for many times its timeout", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const lock = lockPathFor(file);
    await mkdir(lock);
    let ran = false;
    const waiting = withFileLock(file, { staleMs: 3_600_000, timeoutMs: 1_000 }, async () => {
      ran = true;
      return "got it";
    });
    // Ten hand-overs 600 ms apart: 6 s on the clock, six times the timeout. A new holder's directory
    // replaces the old one in one rename, so the lock is never free in between.
    for (let i = 0; i < 10; i++) {
      await realPause();
      vi.setSystemTime(Date.now() + 600);
      await mkdir(`${lock}.next`);
      await rename(`${lock}.next`, lock);
    }
    await realPause();
    expect(ran).toBe(false);
    await rmdir(lock);
    expect(await waiting).toBe("got it");
    expect(await readdir(dir)).toEqual([]);
  });

  it("times out when one holder keeps the lock, however often it refreshes it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const lock = lockPathFor(file);
    await mkdir(lock);
    const outcome = withFileLock(file, { staleMs: 3_600_000, timeoutMs: 1_000 }, async () => "got it").catch(
      (error: unknown) => error,
    );
    for (let i = 0; i < 4; i++) {
      await realPause();
      vi.setSystemTime(Date.now() + 400);
      const now = new Date();
      await utimes(lock, now, now);
    }
    expect(await outcome).toMatchObject({ code: "lock_timeout" });
    expect(existsSync(lock)).toBe(true);
  });
});
