/**
 * @module test-support/fleet-lifecycle
 * One project's whole life in fleet mode, through two handles (two connections, as two machines would
 * have): an ask published and waited for, decided by two racing approvers of which exactly one wins; an
 * "always" approval whose rule lands in the shared overlay and whose run is started and finished; memory written on one and read on the
 * other, todos added by both at once with none lost. The cluster and ACL tests run it where the topology or
 * the server's permissions differ; every step must work there as it does on one open server.
 */
import { expect } from "vitest";
import { argsDigest, type ConfirmationDetails } from "../core/index.js";
import type { Fleet } from "../fleet/index.js";
import { createMemoryStore, createTodoStore } from "../state/index.js";

/** The details of the ask the life publishes (any test publishing an ask may use them). */
export const details: ConfirmationDetails = {
  toolName: "shell",
  description: "make deploy",
  risk: "high",
  locations: [],
  type: "exec",
  command: "make deploy",
  sandbox: "workspace-write",
};

/**
 * Runs the life through `a` and `b` (handles of one project) and returns the raced approval's id.
 * @example await projectLifecycle(await openFleet(settingsA1), await openFleet(settingsA2));
 */
export async function projectLifecycle(a: Fleet, b: Fleet): Promise<string> {
  const digest = argsDigest({ command: "make deploy" });
  const ask = await a.approvals.publish({
    callId: "deploy-1",
    tool: "shell",
    details,
    argsDigest: digest,
    timeoutMs: 600_000,
  });
  // The waiter is armed before the decision (its first read sees pending); the decision wakes it.
  const waiting = a.approvals.wait(ask.id);
  expect((await b.approvals.get(ask.id))?.state).toBe("pending");
  const answers = await Promise.all([
    a.approvals.answer(ask.id, { approved: true, by: "alice", scope: "always" }),
    b.approvals.answer(ask.id, { approved: false, by: "bob", reason: "racing" }),
  ]);
  expect(answers.filter((r) => r.ok)).toHaveLength(1);
  const winner = answers.find((r) => r.ok)?.record;
  const loser = answers.find((r) => !r.ok);
  expect(loser?.message).toMatch(/was already (approved|denied) by (alice|bob) at /);
  const settled = await waiting;
  expect(settled.state).toBe(winner?.state);
  // A waiter that begins after the decision reads it from the state.
  expect((await b.approvals.wait(ask.id)).state).toBe(winner?.state);

  // An "always" approval from the other handle: its rule lands in the shared overlay; its run is tracked.
  const always = await a.approvals.publish({
    callId: "deploy-2",
    tool: "shell",
    details,
    argsDigest: digest,
    timeoutMs: 600_000,
  });
  expect((await b.approvals.answer(always.id, { approved: true, by: "carol", scope: "always" })).ok).toBe(
    true,
  );
  expect((await a.approvals.wait(always.id)).state).toBe("approved");
  const overlay = await a.overlay.list();
  expect(overlay.rules.find((r) => r.id === always.id)).toMatchObject({ tool: "shell", argsDigest: digest });
  expect(overlay.version).toBeGreaterThan(0);
  const end = await a.approvals.begin?.(always.id);
  expect(end).toBeTypeOf("function");
  await end?.();
  expect((await b.approvals.get(always.id))?.run?.state).toBe("finished");

  await createMemoryStore(a.state.memory("project")).set("build", "npm run build");
  expect(await createMemoryStore(b.state.memory("project")).get("build")).toBe("npm run build");
  const writers = [createTodoStore(a.state.todos()), createTodoStore(b.state.todos())];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) => (writers[i % 2] as (typeof writers)[0]).add(`task ${i}`)),
  );
  const texts = (await writers[0]?.list())?.map((t) => t.text).sort();
  expect(texts).toEqual(Array.from({ length: 10 }, (_, i) => `task ${i}`).sort());
  return ask.id;
}
