/**
 * @module bench/fleet
 * One ask's round trip through fleet mode: publish → a decider on another connection sees it (pub/sub) and
 * approves it (the settle script) → the waiter resumes — against a real redis-server (Unix socket, AOF with
 * fsync on every write, as docs/fleet.md asks). Anchor: the same round trip through the in-process store.
 */
import { type ApprovalStore, type ConfirmationDetails, InProcessApprovalStore } from "../core/index.js";
import { connectFleet, RedisApprovalStore } from "../fleet/index.js";
import { startRedis } from "../test-support/redis-process.js";
import { interleaved, p50p99, report } from "./harness.js";

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

export default async function run(): Promise<void> {
  const redis = await startRedis();
  const waiter = new RedisApprovalStore({ client: await connectFleet({ url: redis.url }), project: "bench" });
  const console = new RedisApprovalStore({
    client: await connectFleet({ url: redis.url }),
    project: "bench",
  });
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
  } finally {
    for (const stop of stops) stop();
    await waiter.close();
    await console.close();
    await redis.close();
  }
}
