import { describe, expect, it } from "vitest";
import { type ConfirmationRequest, InProcessApprovalStore } from "../core/index.js";
import {
  ConfirmationTimeoutError,
  MessageBus,
  NoListenerError,
  type PublishedConfirmation,
} from "./message-bus.js";

/** A call's request, as the pipeline makes it. */
const details = (toolName = "write_file", signal = new AbortController().signal): ConfirmationRequest => ({
  callId: `call-${toolName}`,
  call: { name: toolName, args: { path: "a.txt" } },
  details: {
    toolName,
    description: `${toolName} a.txt`,
    risk: "medium",
    locations: ["/p/a.txt"],
    type: "edit",
    sandbox: "none: not a shell command",
  },
  signal,
});

describe("MessageBus", () => {
  it("gives every request a unique correlation id", async () => {
    const bus = new MessageBus();
    const ids: string[] = [];
    bus.onConfirmation((req) => {
      ids.push(req.id);
      return { approved: true };
    });
    await Promise.all(Array.from({ length: 50 }, () => bus.request(details())));
    expect(new Set(ids).size).toBe(50);
  });

  it("publishes the call's id, call, details, agent and a signal beside the ask's id and times", async () => {
    const bus = new MessageBus();
    const seen: PublishedConfirmation[] = [];
    bus.onConfirmation((req) => {
      seen.push(req);
      return { approved: true };
    });
    const signal = new AbortController().signal;
    const request = { ...details("shell", signal), agent: "reviewer" };
    await bus.request(request);
    expect(seen).toEqual([
      {
        ...request,
        signal: expect.any(AbortSignal),
        id: expect.any(String),
        createdAt: expect.any(Number),
        expiresAt: expect.any(Number),
      },
    ]);
    // The listener's question is withdrawn once the ask is settled.
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(seen[0]!.expiresAt - seen[0]!.createdAt).toBe(5 * 60_000);
  });

  it("is an adapter over its approval store: the ask is a record there, answered by the confirmer", async () => {
    const approvals = new InProcessApprovalStore();
    const bus = new MessageBus({ approvals, timeoutMs: 60_000 });
    bus.onConfirmation(() => ({ approved: true, always: true }));
    const signal = new AbortController().signal;
    expect(await bus.request(details("shell", signal))).toEqual({ approved: true, always: true });
    const [record] = await approvals.list();
    expect(record).toMatchObject({
      callId: "call-shell",
      tool: "shell",
      state: "approved",
      settled: { by: "confirmer", scope: "always", at: expect.any(Number) },
    });
    expect(record!.expiresAt - record!.createdAt).toBe(60_000);
  });

  it("settles a request answered in the store by someone else, and withdraws the listener's question", async () => {
    const approvals = new InProcessApprovalStore();
    const bus = new MessageBus({ approvals });
    const published = new Promise<PublishedConfirmation>((resolve) =>
      bus.onConfirmation((req) => {
        resolve(req);
        return undefined;
      }),
    );
    const answer = bus.request(details());
    const request = await published;
    expect(bus.pending()).toEqual([request.id]);
    expect(
      await approvals.answer(request.id, { approved: false, by: "alice", reason: "not now" }),
    ).toMatchObject({
      ok: true,
    });
    await expect(answer).resolves.toEqual({ approved: false, reason: "not now" });
    expect(request.signal.aborted).toBe(true);
    expect(bus.pending()).toEqual([]);
    expect(bus.respond(request.id, { approved: true })).toBe(false);
  });

  it("waits for the response with the matching id and delivers it", async () => {
    const bus = new MessageBus();
    let seen: string | undefined;
    let delivered: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      delivered = resolve;
    });
    bus.onConfirmation((req) => {
      seen = req.id;
      delivered();
      return undefined; // answered later, as a UI would
    });
    const answer = bus.request(details());
    await asked;
    expect(bus.pending()).toEqual([seen]);
    expect(bus.respond("some-other-id", { approved: true })).toBe(false);
    expect(bus.respond(seen!, { approved: false, reason: "no" })).toBe(true);
    await expect(answer).resolves.toEqual({ approved: false, reason: "no" });
    expect(bus.pending()).toEqual([]);
    expect(bus.respond(seen!, { approved: true })).toBe(false);
  });

  it("handles several pending requests independently, by id", async () => {
    const bus = new MessageBus();
    const reqs: { id: string; tool: string }[] = [];
    let all: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      all = resolve;
    });
    bus.onConfirmation((req) => {
      reqs.push({ id: req.id, tool: req.details.toolName });
      if (reqs.length === 3) all();
      return undefined;
    });
    const a = bus.request(details("a"));
    const b = bus.request(details("b"));
    const c = bus.request(details("c"));
    await asked;
    reqs.sort((x, y) => x.tool.localeCompare(y.tool));
    // Answer out of order; each requester gets only its own answer.
    bus.respond(reqs[2]!.id, { approved: true, reason: "c" });
    bus.respond(reqs[0]!.id, { approved: false, reason: "a" });
    bus.respond(reqs[1]!.id, { approved: true, reason: "b" });
    await expect(a).resolves.toEqual({ approved: false, reason: "a" });
    await expect(b).resolves.toEqual({ approved: true, reason: "b" });
    await expect(c).resolves.toEqual({ approved: true, reason: "c" });
  });

  it("rejects with a timeout error when nobody answers in time", async () => {
    const bus = new MessageBus({ timeoutMs: 20 });
    bus.onConfirmation(() => undefined);
    const err = await bus.request(details()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfirmationTimeoutError);
    expect((err as Error).message).toMatch(/^confirmation [0-9a-f-]+ timed out after 20 ms$/);
    expect(bus.pending()).toEqual([]);
  });

  it("supports cancellation through an AbortSignal", async () => {
    const bus = new MessageBus();
    bus.onConfirmation(() => undefined);
    const controller = new AbortController();
    const answer = bus.request(details("write_file", controller.signal));
    controller.abort();
    await expect(answer).rejects.toMatchObject({ name: "AbortError" });
    expect(bus.pending()).toEqual([]);
    await expect(bus.request(details("write_file", controller.signal))).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("rejects when no one listens, unless its store is shared and the answer comes from there", async () => {
    await expect(new MessageBus().request(details())).rejects.toBeInstanceOf(NoListenerError);
    // The in-process store marked shared: the test answers as a person elsewhere would.
    const approvals = new (class extends InProcessApprovalStore {
      override readonly shared = true;
    })();
    const bus = new MessageBus({ approvals });
    const published = new Promise<string>((resolve) => approvals.watch((record) => resolve(record.id)));
    const answer = bus.request(details());
    await approvals.answer(await published, { approved: true, by: "console" });
    await expect(answer).resolves.toEqual({ approved: true });
    expect(bus.pending()).toEqual([]);
  });

  it("as a Confirmer, turns no listener and timeouts into refusals", async () => {
    await expect(new MessageBus().confirm(details())).resolves.toEqual({
      approved: false,
      reason: "no one was available to approve it",
    });
    const slow = new MessageBus({ timeoutMs: 10 });
    slow.onConfirmation(() => undefined);
    await expect(slow.confirm(details())).resolves.toEqual({
      approved: false,
      reason: "no answer within 10 ms",
    });
  });

  it("ignores a listener that throws, leaving the answer to others", async () => {
    const bus = new MessageBus();
    bus.onConfirmation(() => {
      throw new Error("broken UI");
    });
    bus.onConfirmation(() => ({ approved: true }));
    await expect(bus.request(details())).resolves.toEqual({ approved: true });
  });
});
