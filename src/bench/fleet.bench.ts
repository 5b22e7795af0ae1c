/**
 * @module bench/fleet
 * One ask's round trip through fleet mode: publish → a decider on another connection sees it (pub/sub) and
 * approves it (the settle script) → the waiter resumes — against a real redis-server (Unix socket, AOF with
 * fsync on every write, as docs/fleet.md asks). Anchor: the same round trip through the in-process store.
 */
import { type ApprovalStore, type ConfirmationDetails, InProcessApprovalStore } from "../core/index.js";
import { connectFleet, type FleetClient, RedisApprovalStore } from "../fleet/index.js";
import { startRedis } from "../test-support/redis-process.js";
import { interleaved, p50p99, report, stats } from "./harness.js";

const ROUNDS = 300;

const details: ConfirmationDetails = {
  toolName: "write_file",
  description: "Write b.txt",
  risk: "medium",
  locations: ["b.txt"],
  type: "edit",
  sandbox: "not sandboxed: runs in toolgate",
};

/** A decider that approves every pending ask it is told of; returns how to stop it. */
function decider(store: ApprovalStore): () => void {
  return store.watch((record) => {
    if (record.state === "pending") void store.answer(record.id, { approved: true, by: "bench" });
  });
}

/** Publish, then wait until the decider's approval lands. */
function roundTrip(store: ApprovalStore): () => Promise<void> {
  let n = 0;
  return async () => {
    const ask = await store.publish({ callId: `c${++n}`, tool: "write_file", details, timeoutMs: 60_000 });
    const settled = await store.wait(ask.id);
    if (settled.state !== "approved") throw new Error(`ask ${ask.id} ended ${settled.state}`);
  };
}

/**
 * Decision written → waiter resumes: an ask is published and its waiter armed (its first read answered)
 * untimed; the clock runs from the approver's answer to the waiter's resumption, which takes the settled
 * record from the wake-up itself (no read after it). Anchor: the same wake-up bare — a client blocked in
 * BLPOP, another LPUSHes (both write the AOF with fsync, as the answer does).
 */
async function decisionToResume(waiter: RedisApprovalStore, approver: RedisApprovalStore, raw: FleetClient) {
  const ask = await waiter.publish({ callId: "c", tool: "write_file", details, timeoutMs: 60_000 });
  const resumed = waiter.wait(ask.id).then(() => performance.now());
  await raw.ping(); // the wait's first read went out before this; let it land
  const t0 = performance.now();
  await approver.answer(ask.id, { approved: true, by: "bench" });
  return (await resumed) - t0;
}

async function blpopWake(blocked: FleetClient, pusher: FleetClient) {
  const popped = blocked.blPop("bench:anchor", 0).then(() => performance.now());
  await pusher.ping();
  const t0 = performance.now();
  await pusher.lPush("bench:anchor", "x");
  return (await popped) - t0;
}

export default async function run(): Promise<void> {
  const redis = await startRedis();
  const waiter = new RedisApprovalStore({ client: await connectFleet({ url: redis.url }), project: "bench" });
  const console = new RedisApprovalStore({
    client: await connectFleet({ url: redis.url }),
    project: "bench",
  });
  const raw = await connectFleet({ url: redis.url });
  const blocked = await connectFleet({ url: redis.url });
  const local = new InProcessApprovalStore();
  const stops = [decider(console), decider(local)];
  try {
    const [ours, anchor] = await interleaved(roundTrip(waiter), roundTrip(local), ROUNDS);
    report({
      name: `ask round trip, publish → decided on another connection → resumed (${ROUNDS} rounds)`,
      ours: `Redis ${p50p99(ours)}`,
      anchor: `in-process store ${p50p99(anchor)}`,
      ratio: ours.p50 / anchor.p50,
      // A person takes seconds to decide; the store's part must stay far below what anyone notices.
      target: "p99 ≤ 50 ms",
      pass: ours.p99 <= 50,
    });
    stops.shift()?.();
    const wake: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < ROUNDS + 20; i++) {
      const a = await decisionToResume(waiter, console, raw);
      const b = await blpopWake(blocked, raw);
      if (i >= 20) {
        wake.push(a);
        bare.push(b);
      }
    }
    const w = stats(wake);
    const b = stats(bare);
    report({
      name: `approval round trip, decision written → waiter resumed (${ROUNDS} rounds)`,
      ours: `Redis store ${p50p99(w)}`,
      anchor: `bare BLPOP wake-up ${p50p99(b)}`,
      ratio: w.p99 / b.p99,
      target: "p99 ≤ 5 ms",
      pass: w.p99 <= 5,
    });
  } finally {
    for (const stop of stops) stop();
    await waiter.close();
    await console.close();
    await raw.close();
    await blocked.close();
    await redis.close();
  }
}
