/**
 * Fleet mode on a real Redis Cluster of three masters this file starts (`[fleet] cluster`): one project's
 * approvals (publish, a decision racing another, the waiter woken), its "always" overlay rule, its run, memory
 * and todos all work through the cluster client, every key of the project sits in one slot (the hash tag),
 * and a second project's keys land in another slot on another master. A system test: the servers are
 * started with node:child_process (test-support/redis-cluster.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectLifecycle } from "../test-support/fleet-lifecycle.js";
import { startCluster, type TestCluster } from "../test-support/redis-cluster.js";
import { connectFleet, type FleetClient } from "./connect.js";
import { fleetKeys } from "./keys.js";
import { type Fleet, openFleet } from "./open.js";
import { resolveFleet } from "./settings.js";

let cluster: TestCluster;
const fleets: Fleet[] = [];
beforeAll(async () => {
  cluster = await startCluster();
}, 120_000);
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.close()));
  await cluster?.close();
});

async function open(project: string): Promise<Fleet> {
  const settings = resolveFleet({ cluster: cluster.urls, project, worker: `w-${fleets.length}` }, [], {});
  if (!settings) throw new Error("[fleet] cluster resolved to nothing");
  const fleet = await openFleet(settings);
  fleets.push(fleet);
  if (fleet.unreachable) throw new Error(fleet.unreachable);
  return fleet;
}

/** Every key of `project` on each master, by the master's port. */
async function keysByNode(project: string): Promise<Map<number, string[]>> {
  const found = new Map<number, string[]>();
  for (const [i, url] of cluster.urls.entries()) {
    const node: FleetClient = await connectFleet({ url });
    try {
      const keys = (await node.sendCommand(["KEYS", `toolgate:{${project}}:*`])) as string[];
      if (keys.length > 0) found.set(cluster.ports[i] as number, keys);
    } finally {
      await node.close();
    }
  }
  return found;
}

async function slotOf(key: string): Promise<number> {
  const node = await connectFleet({ url: cluster.urls[0] as string });
  try {
    return Number(await node.sendCommand(["CLUSTER", "KEYSLOT", key]));
  } finally {
    await node.close();
  }
}

describe("fleet mode on Redis Cluster", { timeout: 120_000 }, () => {
  it("runs one project's approvals, overlay, runs, memory and todos with every key in one slot", async () => {
    await projectLifecycle(await open("shop"), await open("shop"));
    const byNode = await keysByNode("shop");
    // All of the project's keys on one master, and in one slot there.
    expect([...byNode.keys()]).toHaveLength(1);
    const keys = [...byNode.values()][0] as string[];
    const k = fleetKeys("shop");
    for (const key of [
      k.approvals,
      k.approvalStream,
      k.overlayRules,
      k.runs,
      k.todos,
      k.memoryRevision,
      k.memory("project"),
    ])
      expect(keys).toContain(key);
    const slots = new Set(await Promise.all(keys.map(slotOf)));
    expect(slots.size).toBe(1);
  });

  it("puts a second project in another slot on another master, and keeps the two apart", async () => {
    // "shop" hashes to slot 3,808 and "lab" to 6,901: the first and second masters' ranges (0–5,460, 5,461–10,922).
    const shopSlot = await slotOf(fleetKeys("shop").approvals);
    const labSlot = await slotOf(fleetKeys("lab").approvals);
    expect([shopSlot, labSlot]).toEqual([3808, 6901]);
    await projectLifecycle(await open("lab"), await open("lab"));
    const shopNodes = [...(await keysByNode("shop")).keys()];
    const labNodes = [...(await keysByNode("lab")).keys()];
    expect(labNodes).toHaveLength(1);
    expect(labNodes[0]).not.toBe(shopNodes[0]);
    // A handle of one project sees none of the other's asks.
    const lab = await open("lab");
    const shop = await open("shop");
    const labIds = new Set((await lab.approvals.list()).map((r) => r.id));
    for (const record of await shop.approvals.list()) expect(labIds.has(record.id)).toBe(false);
  });
});
