/**
 * The shared policy overlay against a real redis-server this file starts: an "always" approval adds its rule
 * in the same commit as the decision, raises the version, and every worker's decider applies it at its next
 * call — only ever turning an ask into an allow, never a deny into anything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  argsDigest,
  type Decider,
  type DecisionRequest,
  type PolicyDecision,
  type Tool,
} from "../core/index.js";
import { useRedis } from "../test-support/redis-server.js";
import { RedisApprovalStore } from "./approval-store.js";
import { connectFleet } from "./connect.js";

const server = useRedis();
let project = 0;
const stores: RedisApprovalStore[] = [];

async function store(name: string): Promise<RedisApprovalStore> {
  const s = new RedisApprovalStore({ client: await connectFleet({ url: server().url }), project: name });
  stores.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

const details = {
  toolName: "shell",
  description: "make deploy",
  risk: "high" as const,
  locations: [],
  type: "exec" as const,
  command: "make deploy",
  sandbox: "workspace-write",
};
const args = { command: "make deploy" };

/** A decider that always answers `decision`, as a policy would. */
const fixed = (decision: PolicyDecision["decision"]): Decider => ({
  decide: async () => ({ decision, risk: "high", reason: `the policy says ${decision}` }),
});

const request = (a: Record<string, unknown>, sandbox?: "network" | "off"): DecisionRequest =>
  ({
    tool: { name: "shell" } as Tool,
    invocation: sandbox ? { sandboxRequest: () => ({ level: sandbox }) } : {},
    args: a,
    risk: "high",
  }) as unknown as DecisionRequest;

describe("the fleet's policy overlay", () => {
  let approver: RedisApprovalStore;
  let worker: RedisApprovalStore;
  let name: string;
  beforeAll(async () => {
    name = `overlay-${++project}`;
    approver = await store(name);
    worker = await store(name);
  });

  it("adds a rule with an always approval, applied by another worker at its next call; removing it asks again", async () => {
    const decider = worker.overlay.decider(fixed("ask"));
    expect((await decider.decide(request(args))).decision).toBe("ask");
    const ask = await worker.publish({
      callId: "c1",
      tool: "shell",
      details,
      argsDigest: argsDigest(args),
      timeoutMs: 60_000,
    });
    const won = await approver.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    expect(won).toMatchObject({ ok: true, record: { state: "approved", settled: { scope: "always" } } });
    const listed = await approver.overlay.list();
    expect(listed.version).toBe(1);
    expect(listed.rules).toEqual([
      expect.objectContaining({
        id: ask.id,
        tool: "shell",
        argsDigest: argsDigest(args),
        by: "alice",
        version: 1,
      }),
    ]);
    const allowed = await decider.decide(request(args));
    expect(allowed).toMatchObject({ decision: "allow", rule: { id: `fleet-overlay#${ask.id}` } });
    // Exactly these arguments: any other call still asks.
    expect((await decider.decide(request({ command: "make deploy-all" }))).decision).toBe("ask");
    // Leaving the sandbox further than the rule grants is still asked.
    expect((await decider.decide(request(args, "network"))).decision).toBe("ask");

    expect(await approver.overlay.remove(ask.id)).toBe(true);
    expect(await approver.overlay.remove(ask.id)).toBe(false);
    expect((await approver.overlay.list()).version).toBe(2);
    expect((await decider.decide(request(args))).decision).toBe("ask");
  });

  it("never loosens a deny, and leaves an allow as it is", async () => {
    const ask = await worker.publish({
      callId: "c2",
      tool: "shell",
      details,
      argsDigest: argsDigest(args),
      timeoutMs: 60_000,
    });
    await approver.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    const denied = await worker.overlay.decider(fixed("deny")).decide(request(args));
    expect(denied).toMatchObject({ decision: "deny", reason: "the policy says deny" });
    const allowed = await worker.overlay.decider(fixed("allow")).decide(request(args));
    expect(allowed).toMatchObject({ decision: "allow", reason: "the policy says allow" });
  });

  it("adds no rule for an always approval of an ask published without an argument digest", async () => {
    const ask = await worker.publish({ callId: "c3", tool: "shell", details, timeoutMs: 60_000 });
    const before = await approver.overlay.list();
    const won = await approver.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    expect(won).toMatchObject({ ok: true, record: { state: "approved" } });
    expect(await approver.overlay.list()).toEqual(before);
  });

  it("keeps the asks standing when the overlay cannot be read (the server away): they fail closed later", async () => {
    const gone = new RedisApprovalStore({ client: await connectFleet({ url: server().url }), project: name });
    await gone.close();
    const decision = await gone.overlay.decider(fixed("ask")).decide(request(args));
    expect(decision.decision).toBe("ask");
  });

  it("keeps projects apart: a rule of project A does not apply in project B", async () => {
    const other = await store(`overlay-${++project}`);
    expect((await other.overlay.list()).rules).toEqual([]);
    expect((await other.overlay.decider(fixed("ask")).decide(request(args))).decision).toBe("ask");
  });
});
