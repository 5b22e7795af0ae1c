/**
 * The pipeline's `ask` through the approval store: every ask is a record there, answered exactly once — by
 * the call's own confirm, the gate's confirmer, or someone reading a shared store (a console) — and the
 * settled record decides. A shared store here is the in-process one marked shared: the test plays the
 * person elsewhere, answering in the store.
 */
import { describe, expect, it } from "vitest";
import { MessageBus } from "../bus/index.js";
import { pipelineFixture } from "../test-support/pipeline.js";
import { InProcessApprovalStore } from "./approval-store.js";
import { executeCall, type PipelineDeps } from "./execute.js";
import type { ApprovalRecord, ApprovalStore, ConfirmationRequest } from "./types.js";

/** An in-process store that says people elsewhere can see it (the test answers for them). */
class VisibleStore extends InProcessApprovalStore {
  override readonly shared = true;
}

function setup(extra: Partial<PipelineDeps> = {}) {
  return pipelineFixture({ write_file: "ask" }, { confirmTimeoutMs: 86_400_000, ...extra });
}

const write = (id: string) => ({ name: "write_file", args: { path: `/p/${id}` }, id });

/** The next ask published in `store`, once it is there. */
function nextAsk(store: ApprovalStore): Promise<ApprovalRecord> {
  return new Promise((resolve) => {
    const stop = store.watch((record) => {
      if (record.state !== "pending") return;
      stop();
      resolve(record);
    });
  });
}

describe("executeCall: asks in the approval store", () => {
  it("records who answered: the call's own confirm, the gate's confirmer, or the name an answer gives", async () => {
    const approvals = new InProcessApprovalStore();
    const bus = new MessageBus({ approvals });
    bus.onConfirmation(() => ({ approved: false, reason: "not on main" }));
    const { deps, ran } = setup({ approvals, confirmer: bus });
    await executeCall(deps, write("a"), { confirm: async () => ({ approved: true, always: true }) });
    await executeCall(deps, write("b"));
    await executeCall(deps, write("c"), { confirm: async () => ({ approved: true, by: "alice" }) });
    expect(ran).toEqual(["write:/p/a", "write:/p/c"]);
    expect((await approvals.list()).map((r) => [r.callId, r.tool, r.state, r.settled])).toEqual([
      ["a", "write_file", "approved", { by: "caller", at: expect.any(Number), scope: "always" }],
      ["b", "write_file", "denied", { by: "confirmer", at: expect.any(Number), reason: "not on main" }],
      ["c", "write_file", "approved", { by: "alice", at: expect.any(Number), scope: "once" }],
    ]);
  });

  it("with a shared store and no one here to ask, waits for an answer given there", async () => {
    const approvals = new VisibleStore();
    for (const extra of [{}, { confirmer: new MessageBus({ approvals }) }]) {
      const { deps, ran } = setup({ approvals, ...extra });
      const asked = nextAsk(approvals);
      const running = executeCall(deps, write("x"));
      const ask = await asked;
      expect(ask).toMatchObject({ callId: "x", state: "pending", details: { description: "write /p/x" } });
      expect(await approvals.answer(ask.id, { approved: true, by: "console" })).toMatchObject({ ok: true });
      expect((await running).ok).toBe(true);
      expect(ran).toEqual(["write:/p/x"]);
      const refused = nextAsk(approvals);
      const denied = executeCall(deps, write("y"));
      await approvals.answer((await refused).id, { approved: false, by: "console", reason: "not today" });
      expect((await denied).error?.message).toBe("write_file was denied: it was not approved: not today");
    }
  });

  it("lets an answer given elsewhere win over the call's own confirm, whose question is withdrawn", async () => {
    const approvals = new VisibleStore();
    const { deps, ran } = setup({ approvals });
    const withdrawn: unknown[] = [];
    const asked = nextAsk(approvals);
    const running = executeCall(deps, write("x"), {
      confirm: (request: ConfirmationRequest) =>
        new Promise((resolve) => {
          request.signal.addEventListener("abort", () => {
            withdrawn.push(request.signal.aborted);
            // The person clicks "yes" on the stale prompt: too late, the ask is settled.
            resolve({ approved: true });
          });
        }),
    });
    const ask = await asked;
    await approvals.answer(ask.id, { approved: false, by: "console", reason: "someone else said no" });
    expect((await running).error?.message).toBe(
      "write_file was denied: it was not approved: someone else said no",
    );
    expect(withdrawn).toEqual([true]);
    expect(ran).toEqual([]);
    expect(await approvals.get(ask.id)).toMatchObject({ state: "denied", settled: { by: "console" } });
  });

  it("withdraws the ask of a cancelled call, and an answer after that loses", async () => {
    const approvals = new VisibleStore();
    const { deps } = setup({ approvals });
    const controller = new AbortController();
    const asked = nextAsk(approvals);
    const running = executeCall(deps, write("x"), { signal: controller.signal });
    const ask = await asked;
    controller.abort();
    expect((await running).error?.type).toBe("cancelled");
    expect(await approvals.get(ask.id)).toMatchObject({ state: "cancelled", settled: { by: "toolgate" } });
    const late = await approvals.answer(ask.id, { approved: true, by: "console" });
    expect(late.ok ? "" : late.message).toMatch(/was withdrawn at .* \(its call was cancelled\)$/);
  });

  it("expires an unanswered ask as a deny and withdraws the question", async () => {
    const approvals = new VisibleStore();
    const { deps, ran } = setup({ approvals, confirmTimeoutMs: 20 });
    let withdrawn = false;
    const r = await executeCall(deps, write("x"), {
      confirm: (request) =>
        new Promise((resolve) => {
          request.signal.addEventListener("abort", () => {
            withdrawn = true;
            resolve({ approved: true });
          });
        }),
    });
    expect(r.error?.message).toBe("write_file was denied: it was not approved: no answer within 20 ms");
    expect(withdrawn).toBe(true);
    expect(ran).toEqual([]);
    expect((await approvals.list()).map((a) => a.state)).toEqual(["expired"]);
  });

  it("fails closed when the store fails: no ask kept, or an answer not recorded", async () => {
    const broken = (method: "publish" | "answer"): ApprovalStore => {
      const store = new InProcessApprovalStore();
      store[method] = async () => {
        throw new Error(`${method}: connection refused`);
      };
      return store;
    };
    for (const method of ["publish", "answer"] as const) {
      const { deps, ran } = setup({ approvals: broken(method) });
      const r = await executeCall(deps, write("x"), { confirm: async () => ({ approved: true }) });
      expect(r.error).toEqual({
        type: "denied_by_policy",
        message: `write_file was denied: the approval store failed (${method}: connection refused)`,
      });
      expect(ran).toEqual([]);
    }
  });
});
