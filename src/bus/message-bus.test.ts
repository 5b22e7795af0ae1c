import { describe, expect, it } from "vitest";
import type { ConfirmationRequest } from "../core/index.js";
import { ConfirmationTimeoutError, MessageBus, NoListenerError } from "./message-bus.js";

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

  it("publishes the call's id, call, details, agent and signal beside the correlation id", async () => {
    const bus = new MessageBus();
    const seen: unknown[] = [];
    bus.onConfirmation((req) => {
      seen.push(req);
      return { approved: true };
    });
    const signal = new AbortController().signal;
    const request = { ...details("shell", signal), agent: "reviewer" };
    await bus.request(request);
    expect(seen).toEqual([{ ...request, id: expect.any(String), createdAt: expect.any(Number) }]);
    expect((seen[0] as { signal: AbortSignal }).signal).toBe(signal);
  });

  it("waits for the response with the matching id and delivers it", async () => {
    const bus = new MessageBus();
    let seen: string | undefined;
    bus.onConfirmation((req) => {
      seen = req.id;
      return undefined; // answered later, as a UI would
    });
    const answer = bus.request(details());
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
    bus.onConfirmation((req) => {
      reqs.push({ id: req.id, tool: req.details.toolName });
      return undefined;
    });
    const a = bus.request(details("a"));
    const b = bus.request(details("b"));
    const c = bus.request(details("c"));
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

  it("rejects when no one listens", async () => {
    await expect(new MessageBus().request(details())).rejects.toBeInstanceOf(NoListenerError);
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
