/**
 * @module test-support/approval-store-contract
 * The contract every ApprovalStore passes (hono's shared-case pattern: one suite, every implementation runs
 * it in one line). An implementation's test calls `approvalStoreContract(name, setup)`; `setup` gets the
 * clock the store must use and returns handles on one fresh, empty storage (`open()` may return the same
 * object each time, or — for a shared store — a new connection each time, so racing answers come from
 * different clients).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalRecord, ApprovalStore, ConfirmationDetails } from "../core/index.js";

/** One storage under test. */
export interface ApprovalStoreFixture {
  /** A handle on the storage. */
  open(): ApprovalStore;
  /** Releases the storage (stops servers, removes folders). */
  close(): Promise<void>;
}

/** A clock the test moves: real time plus whatever the test adds. */
class TestClock {
  private offset = 0;
  readonly now = () => Date.now() + this.offset;
  advance(ms: number): void {
    this.offset += ms;
  }
}

const details: ConfirmationDetails = {
  toolName: "shell",
  description: "rm -rf build",
  risk: "high",
  locations: ["/ws/build"],
  type: "exec",
  command: "rm -rf build",
  reason: "deletes files",
  rule: "policy.toml#3",
  sandbox: "workspace-write: writes only inside /ws, no network",
};

function ask(overrides: Partial<ApprovalAsk> = {}): ApprovalAsk {
  return { callId: "call-1", tool: "shell", details, timeoutMs: 60_000, ...overrides };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Registers the contract's tests for one implementation.
 * @example approvalStoreContract("in-process", async (now) => { const s = new InProcessApprovalStore({ now }); return { open: () => s, close: async () => {} }; });
 */
export function approvalStoreContract(
  name: string,
  setup: (now: () => number) => Promise<ApprovalStoreFixture>,
): void {
  describe(`ApprovalStore contract: ${name}`, () => {
    let clock: TestClock;
    let fixture: ApprovalStoreFixture;
    let store: ApprovalStore;
    beforeEach(async () => {
      clock = new TestClock();
      fixture = await setup(clock.now);
      store = fixture.open();
    });
    afterEach(async () => {
      await fixture.close();
    });

    it("publishes a pending ask with display-safe details, its times and no settlement", async () => {
      const before = clock.now();
      const record = await store.publish(ask({ agent: "reviewer" }));
      expect(record).toEqual({
        id: expect.any(String),
        callId: "call-1",
        tool: "shell",
        details,
        agent: "reviewer",
        createdAt: expect.any(Number),
        expiresAt: record.createdAt + 60_000,
        state: "pending",
        // Which process and project asked (a store that knows them says so: the console groups by them).
        ...(record.process === undefined ? {} : { process: expect.any(String) }),
        ...(record.project === undefined ? {} : { project: expect.any(String) }),
      });
      expect(record.createdAt).toBeGreaterThanOrEqual(before);
      expect(await fixture.open().get(record.id)).toEqual(record);
      const other = await store.publish(ask());
      expect(other.id).not.toBe(record.id);
      expect(other).not.toHaveProperty("agent");
    });

    it("records who answered, when, and the scope of an approval", async () => {
      const once = await store.publish(ask());
      const always = await store.publish(ask({ callId: "call-2" }));
      const denied = await store.publish(ask({ callId: "call-3" }));
      const a = await store.answer(once.id, { approved: true, by: "alice" });
      expect(a).toEqual({
        ok: true,
        record: {
          ...once,
          state: "approved",
          settled: { by: "alice", at: expect.any(Number), scope: "once" },
        },
      });
      const b = await store.answer(always.id, { approved: true, by: "bob", scope: "always", reason: "fine" });
      expect(b.ok && b.record.settled).toEqual({
        by: "bob",
        at: expect.any(Number),
        scope: "always",
        reason: "fine",
      });
      const c = await store.answer(denied.id, { approved: false, by: "carol", reason: "not on main" });
      expect(c.ok && c.record).toMatchObject({
        state: "denied",
        settled: { by: "carol", reason: "not on main" },
      });
      expect(c.ok && c.record.settled).not.toHaveProperty("scope");
      expect((await fixture.open().get(always.id))?.settled?.scope).toBe("always");
    });

    it("settles exactly once: a later answer is told who answered and when", async () => {
      const record = await store.publish(ask());
      const first = await store.answer(record.id, { approved: false, by: "alice", reason: "no" });
      expect(first.ok).toBe(true);
      const at = first.ok ? (first.record.settled?.at as number) : 0;
      const second = await fixture.open().answer(record.id, { approved: true, by: "bob" });
      expect(second).toEqual({
        ok: false,
        record: expect.objectContaining({
          state: "denied",
          settled: expect.objectContaining({ by: "alice" }),
        }),
        message: `approval ${record.id} was already denied by alice at ${new Date(at).toISOString()}`,
      });
      expect((await store.get(record.id))?.state).toBe("denied");
    });

    it("lets exactly one of many racing answers win, from many handles", async () => {
      const record = await store.publish(ask());
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          fixture.open().answer(record.id, { approved: i % 2 === 0, by: `person-${i}` }),
        ),
      );
      const winners = answers.filter((a) => a.ok);
      expect(winners).toHaveLength(1);
      const won = winners[0] as { ok: true; record: ApprovalRecord };
      const final = (await store.get(record.id)) as ApprovalRecord;
      expect(final).toEqual(won.record);
      const verb = final.state === "approved" ? "approved" : "denied";
      const by = final.settled?.by;
      for (const lost of answers.filter((a) => !a.ok)) {
        expect(lost.ok ? "" : lost.message).toMatch(
          new RegExp(`^approval ${record.id} was already ${verb} by ${by} at \\d{4}-`),
        );
      }
    });

    it("lets exactly one of answers and a withdrawal racing from many handles win; every handle agrees", async () => {
      for (let round = 0; round < 6; round++) {
        const record = await store.publish(ask({ callId: `race-${round}` }));
        const waiters = Array.from({ length: 4 }, () => fixture.open().wait(record.id));
        const attempts = await Promise.all(
          Array.from({ length: 12 }, (_, i) => {
            const handle = fixture.open();
            if (i === round) return handle.withdraw(record.id);
            return handle.answer(record.id, { approved: i % 3 !== 0, by: `person-${i}` });
          }),
        );
        expect(attempts.filter((a) => a.ok)).toHaveLength(1);
        const final = (await store.get(record.id)) as ApprovalRecord;
        expect(final.state).not.toBe("pending");
        for (const waited of await Promise.all(waiters)) expect(waited).toEqual(final);
        for (let i = 0; i < 4; i++) expect(await fixture.open().get(record.id)).toEqual(final);
      }
    });

    it("expires an overdue ask exactly once when many handles expire at once", async () => {
      const records = await Promise.all(
        Array.from({ length: 5 }, (_, i) => store.publish(ask({ callId: `due-${i}`, timeoutMs: 100 }))),
      );
      clock.advance(100);
      const rounds = await Promise.all(Array.from({ length: 6 }, () => fixture.open().expire()));
      const expiredIds = rounds.flat().map((r) => r.id);
      expect(expiredIds.sort()).toEqual(records.map((r) => r.id).sort());
      const settledAt = new Set(
        await Promise.all(records.map(async (r) => (await store.get(r.id))?.settled?.at)),
      );
      expect(settledAt.has(undefined)).toBe(false);
    });

    it("gives asks published at once from many handles distinct ids, every one listed", async () => {
      const published = await Promise.all(
        Array.from({ length: 20 }, (_, i) => fixture.open().publish(ask({ callId: `p-${i}` }))),
      );
      expect(new Set(published.map((r) => r.id)).size).toBe(20);
      const listed = await fixture.open().list({ state: "pending" });
      expect(listed.map((r) => r.callId).sort()).toEqual(published.map((r) => r.callId).sort());
      for (const record of published) expect(await fixture.open().get(record.id)).toEqual(record);
    });

    it("never misses an answer given before the waiter starts waiting", async () => {
      // Expiring in a day: a wait that missed the answer would hang (the test's timeout), not expire.
      const record = await store.publish(ask({ timeoutMs: 86_400_000 }));
      await fixture.open().answer(record.id, { approved: true, by: "alice" });
      const waited = await store.wait(record.id);
      expect(waited).toMatchObject({ id: record.id, state: "approved", settled: { by: "alice" } });
    });

    it("wakes a waiter when another handle answers", async () => {
      const record = await store.publish(ask());
      const waiting = store.wait(record.id);
      const woken: ApprovalRecord[] = [];
      const stop = store.watch((r) => woken.push(r));
      await fixture.open().answer(record.id, { approved: true, by: "alice" });
      expect(await waiting).toMatchObject({ state: "approved", settled: { by: "alice" } });
      stop();
      expect(woken.some((r) => r.id === record.id && r.state === "approved")).toBe(true);
    });

    it("expires an unanswered ask as a deny: an answer past its expiry loses", async () => {
      const record = await store.publish(ask({ timeoutMs: 1_000 }));
      clock.advance(1_000);
      const late = await store.answer(record.id, { approved: true, by: "alice" });
      expect(late.ok).toBe(false);
      expect(late.ok ? "" : late.message).toMatch(
        new RegExp(`^approval ${record.id} already expired at \\S+ \\(no answer within 1000 ms\\)$`),
      );
      const expired = (await fixture.open().get(record.id)) as ApprovalRecord;
      expect(expired).toMatchObject({ state: "expired", settled: { by: "toolgate" } });
      expect(new Date(expired.settled?.at as number).toISOString()).toMatch(ISO);
    });

    it("lets exactly one of an expiry and an answer win when they race", async () => {
      for (let round = 0; round < 10; round++) {
        const record = await store.publish(ask({ callId: `race-${round}`, timeoutMs: 500 }));
        const waiter = fixture.open().wait(record.id);
        // Both at the expiry instant: whichever the store settles first wins, and everyone agrees on it.
        clock.advance(round % 2 === 0 ? 500 : 499);
        const answering = fixture.open().answer(record.id, { approved: true, by: "alice" });
        clock.advance(1);
        const [answered, expired] = await Promise.all([answering, fixture.open().expire()]);
        const final = (await store.get(record.id)) as ApprovalRecord;
        expect(await waiter).toEqual(final);
        if (answered.ok) {
          expect(final.state).toBe("approved");
          expect(expired.map((r) => r.id)).not.toContain(record.id);
        } else {
          expect(final.state).toBe("expired");
        }
      }
    });

    it("has the waiter write the expiry itself when no one else does", async () => {
      const record = await store.publish(ask({ timeoutMs: 30 }));
      const waited = await store.wait(record.id);
      expect(waited).toMatchObject({ state: "expired", settled: { by: "toolgate" } });
      expect((await fixture.open().get(record.id))?.state).toBe("expired");
    });

    it("withdraws an ask through the same rule", async () => {
      const record = await store.publish(ask());
      const withdrawn = await store.withdraw(record.id);
      expect(withdrawn.ok && withdrawn.record).toMatchObject({
        state: "cancelled",
        settled: { by: "toolgate" },
      });
      const late = await fixture.open().answer(record.id, { approved: true, by: "alice" });
      expect(late.ok ? "" : late.message).toMatch(
        new RegExp(`^approval ${record.id} was withdrawn at \\S+ \\(its call was cancelled\\)$`),
      );
      const answered = await store.publish(ask({ callId: "call-2" }));
      await store.answer(answered.id, { approved: true, by: "alice" });
      expect((await store.withdraw(answered.id)).ok).toBe(false);
      expect((await store.get(answered.id))?.state).toBe("approved");
    });

    it("stops a wait when its signal aborts, leaving the ask pending", async () => {
      const record = await store.publish(ask());
      const controller = new AbortController();
      const waiting = store.wait(record.id, { signal: controller.signal });
      const reason = new Error("the call was cancelled");
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      expect((await store.get(record.id))?.state).toBe("pending");
      await expect(store.wait(record.id, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    });

    it("says plainly when an id is unknown", async () => {
      expect(await store.get("no-such-id")).toBeUndefined();
      expect(await store.answer("no-such-id", { approved: true, by: "alice" })).toEqual({
        ok: false,
        message: 'no approval with id "no-such-id"',
      });
      await expect(store.wait("no-such-id")).rejects.toThrow('no approval with id "no-such-id"');
    });

    it("lists oldest first, filtered by state, tool and agent, overdue asks as expired", async () => {
      const a = await store.publish(ask({ callId: "a", tool: "shell", agent: "writer", timeoutMs: 10_000 }));
      clock.advance(1);
      const b = await store.publish(ask({ callId: "b", tool: "write_file", timeoutMs: 60_000 }));
      clock.advance(1);
      const c = await store.publish(ask({ callId: "c", tool: "shell", timeoutMs: 60_000 }));
      await store.answer(c.id, { approved: true, by: "alice" });
      const ids = (records: ApprovalRecord[]) => records.map((r) => r.callId);
      expect(ids(await store.list())).toEqual(["a", "b", "c"]);
      expect(ids(await store.list({ state: "pending" }))).toEqual(["a", "b"]);
      expect(ids(await store.list({ state: ["approved", "denied"] }))).toEqual(["c"]);
      expect(ids(await store.list({ tool: "shell" }))).toEqual(["a", "c"]);
      expect(ids(await store.list({ agent: "writer" }))).toEqual(["a"]);
      expect(ids(await store.list({ tool: "shell", state: "pending" }))).toEqual(["a"]);
      clock.advance(10_000);
      expect(ids(await fixture.open().list({ state: "pending" }))).toEqual(["b"]);
      expect((await store.get(a.id))?.state).toBe("expired");
      expect((await store.get(b.id))?.state).toBe("pending");
    });

    it("expires every overdue ask on expire(), and only those", async () => {
      // The clock is real time plus what the test adds: timeouts far longer than a busy machine's pauses.
      const soon = await store.publish(ask({ callId: "soon", timeoutMs: 60_000 }));
      const late = await store.publish(ask({ callId: "late", timeoutMs: 100_000_000 }));
      expect(await store.expire()).toEqual([]);
      clock.advance(60_000);
      const expired = await store.expire();
      expect(expired.map((r) => [r.id, r.state])).toEqual([[soon.id, "expired"]]);
      expect(await store.expire()).toEqual([]);
      expect((await store.get(late.id))?.state).toBe("pending");
    });

    it("wakes watchers on publish and on settle, until they stop", async () => {
      const seen: string[] = [];
      const stop = store.watch((r) => seen.push(`${r.callId}:${r.state}`));
      const record = await store.publish(ask());
      await store.answer(record.id, { approved: false, by: "alice" });
      // Wake-ups may come late (a shared store delivers them from elsewhere): wait for the state they say.
      await expect.poll(() => seen, { timeout: 60_000 }).toEqual(["call-1:pending", "call-1:denied"]);
      stop();
      await store.publish(ask({ callId: "after" }));
      expect((await store.list()).map((r) => r.callId)).toContain("after");
      expect(seen).not.toContain("after:pending");
    });

    it("hands out copies: changing a returned record changes nothing stored", async () => {
      const record = await store.publish(ask());
      record.state = "approved";
      record.details.command = "something else";
      const stored = (await store.get(record.id)) as ApprovalRecord;
      expect(stored.state).toBe("pending");
      expect(stored.details.command).toBe("rm -rf build");
    });
  });
}
