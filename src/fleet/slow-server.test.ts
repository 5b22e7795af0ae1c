/**
 * A server slower than node-redis would wait, at small size: the soak at the size failed with a
 * `TimeoutError` when commands waited in the client's own queue (not yet sent) longer than node-redis's 5 s
 * default, behind thousands of others on a loaded machine. Here the real redis-server is stopped (SIGSTOP)
 * past that while one handle has a large write in front of a list of every ask, an audit record and a
 * decision, and a second handle races the decision. Resumed, every command completes: the ask is decided
 * exactly once, the list is whole, the memory write landed, the audit chain verifies.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type AuditRecord, verifyChain } from "../core/index.js";
import { createMemoryStore } from "../state/index.js";
import { details } from "../test-support/fleet-lifecycle.js";
import { useRedis } from "../test-support/redis-server.js";
import { RedisApprovalStore } from "./approval-store.js";
import { RedisAuditSink } from "./audit-sink.js";
import { connectFleet } from "./connect.js";
import { fleetKeys } from "./keys.js";
import { createRedisStateBackend } from "./state-backend.js";

const server = useRedis();

/**
 * How long the server stays stopped: past node-redis 6's own command timeout (5 s, its DEFAULT_COMMAND_TIMEOUT,
 * applied to commands not yet sent), which is the failure under test — not a wait for some state.
 */
const STALL_MS = 5_000 + 1_500;
const ASKS = 300;

const record: AuditRecord = {
  time: new Date(0).toISOString(),
  tool: "noop",
  callId: "slow-1",
  argsDigest: "0".repeat(64),
  decision: "allow",
  rule: null,
  risk: "low",
  outcome: "ok",
  durationMs: 1,
};

describe("a server slower than the client's own timeout", () => {
  it("is waited for: a decision queued behind a large write is made exactly once, list and audit complete", {
    timeout: 120_000,
  }, async () => {
    const project = "slow";
    const keys = fleetKeys(project);
    const workerClient = await connectFleet({ url: server().url });
    const approverClient = await connectFleet({ url: server().url });
    const worker = new RedisApprovalStore({ client: workerClient, project, worker: "w", ownsClient: false });
    const approver = new RedisApprovalStore({ client: approverClient, project, ownsClient: false });
    const audit = new RedisAuditSink({ client: workerClient, project, worker: "w" });
    const state = createRedisStateBackend({ client: workerClient, project, ownsClient: false });
    const memory = createMemoryStore(state.memory("project"), { maxValueBytes: 8 * 1024 * 1024 });
    const redis = server().process;
    try {
      const ids: string[] = [];
      for (let i = 0; i < ASKS; i++)
        ids.push((await worker.publish({ callId: `c${i}`, tool: "shell", details, timeoutMs: 600_000 })).id);
      const raced = ids[0] as string;
      // The waiter subscribes and reads before the stall; the decision wakes it after.
      const waiting = worker.wait(raced);

      redis.kill("SIGSTOP");
      // 4 MB first: the socket fills, so what follows waits unsent in the client's queue while the server is
      // stopped — the commands node-redis failed after 5 s.
      const big = "x".repeat(4 * 1024 * 1024);
      const wrote = memory.set("big", big);
      const answers = Promise.all([
        worker.answer(raced, { approved: true, by: "alice" }),
        approver.answer(raced, { approved: false, by: "bob", reason: "racing" }),
      ]);
      const listed = worker.list();
      const audited = audit.write(record);
      await sleep(STALL_MS);
      redis.kill("SIGCONT");

      await wrote;
      const [a, b] = await answers;
      expect([a, b].filter((r) => r.ok)).toHaveLength(1);
      const winner = (a.ok ? a : b).record;
      const loser = a.ok ? b : a;
      expect(loser.ok ? "" : loser.message).toMatch(/was already (approved|denied) by (alice|bob) at /);
      expect((await waiting).state).toBe(winner?.state);
      expect((await worker.get(raced))?.settled?.by).toBe(winner?.settled?.by);
      // Exactly one settlement in the stream every settlement is written to.
      const entries = (await workerClient.xRange(keys.approvalStream, "-", "+")) ?? [];
      expect(entries.filter((e) => e.message.id === raced && e.message.state !== "pending")).toHaveLength(1);

      const list = await listed;
      expect(list).toHaveLength(ASKS);
      expect(new Set(list.map((r) => r.id))).toEqual(new Set(ids));
      expect((await memory.read("big"))?.value).toHaveLength(big.length);

      await audited;
      await audit.close();
      const verdict = await verifyChain(audit.log.entries(), await audit.log.trimmed());
      expect(verdict).toMatchObject({ ok: true });
      expect(await workerClient.xLen(keys.audit)).toBe(1);
    } finally {
      redis.kill("SIGCONT");
      await worker.close();
      await approver.close();
      await workerClient.close();
      await approverClient.close();
    }
  });
});
