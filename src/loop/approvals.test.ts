/**
 * The session allow-list and the broker: "always" covers the exact call only (an adversarial table of near
 * misses), questions are asked one at a time, a failing confirm is a no, a cancelled call is not asked, and
 * the same broker answers a real message bus's published requests.
 */
import { describe, expect, it } from "vitest";
import { MessageBus } from "../bus/index.js";
import type { ConfirmationRequest } from "../core/index.js";
import { ConfirmationBroker, SessionApprovals } from "./approvals.js";

/** A call's request, as the pipeline makes it. */
function request(name: string, args: unknown, signal = new AbortController().signal): ConfirmationRequest {
  return {
    callId: `${name}-${JSON.stringify(args)}`,
    call: { name, args },
    details: {
      toolName: name,
      description: name,
      risk: "medium",
      locations: [],
      type: "generic",
      sandbox: "none: not a shell command",
    },
    signal,
  };
}

/** Asks as the pipeline does: the call's request to the broker's `confirm`. */
const ask = (broker: ConfirmationBroker, name: string, args: unknown) => broker.confirm(request(name, args));

describe("always for this session", () => {
  const approved = { name: "shell", args: { command: "npm test" } };
  it.each([
    ["the same command", "shell", { command: "npm test" }, true],
    ["the same arguments in another key order", "shell", { command: "npm test" }, true],
    ["another command of the same program", "shell", { command: "npm run build" }, false],
    ["the command with more chained", "shell", { command: "npm test; rm -rf ~" }, false],
    ["the command with an extra flag", "shell", { command: "npm test --force" }, false],
    ["the command with trailing space", "shell", { command: "npm test " }, false],
    ["the command with another cwd", "shell", { command: "npm test", cwd: "sub" }, false],
    ["the same arguments for another tool", "run_script", { command: "npm test" }, false],
  ])("%s → %s", (_note, name, args, want) => {
    const approvals = new SessionApprovals();
    approvals.add(approved.name, approved.args);
    expect(approvals.has(name, args)).toBe(want);
  });

  it("keys edits by their exact content, not only the path", () => {
    const approvals = new SessionApprovals();
    approvals.add("write_file", { path: "a.txt", content: "1" });
    expect(approvals.has("write_file", { content: "1", path: "a.txt" })).toBe(true);
    expect(approvals.has("write_file", { path: "a.txt", content: "2" })).toBe(false);
    expect(approvals.has("write_file", { path: "b.txt", content: "1" })).toBe(false);
  });
});

describe("ConfirmationBroker", () => {
  it("asks once for an exact call answered always, and again for any other", async () => {
    const asked: ConfirmationRequest[] = [];
    const broker = new ConfirmationBroker(async (r) => {
      asked.push(r);
      return { approved: true, always: true };
    });
    expect(await ask(broker, "shell", { command: "ls" })).toEqual({ approved: true, always: true });
    expect(await ask(broker, "shell", { command: "ls" })).toEqual({
      approved: true,
      always: true,
      reason: "approved earlier for this session",
    });
    await ask(broker, "shell", { command: "ls -a" });
    expect(asked.map((r) => r.call)).toEqual([
      { name: "shell", args: { command: "ls" } },
      { name: "shell", args: { command: "ls -a" } },
    ]);
  });

  it("asks one question at a time, and the first answer can settle a queued identical call", async () => {
    let open = 0;
    let most = 0;
    const broker = new ConfirmationBroker(async () => {
      open++;
      most = Math.max(most, open);
      await new Promise((r) => setTimeout(r, 20));
      open--;
      return { approved: true, always: true };
    });
    const answers = await Promise.all([
      ask(broker, "write_file", { path: "x", content: "1" }),
      ask(broker, "write_file", { path: "x", content: "1" }),
      ask(broker, "write_file", { path: "y", content: "1" }),
    ]);
    expect(most).toBe(1);
    expect(answers.map((a) => a.approved)).toEqual([true, true, true]);
    expect(answers[1]).toMatchObject({ reason: "approved earlier for this session" });
  });

  it("treats a failing confirm and a no as no, with the person's reason when they gave one", async () => {
    const replies = ["throw", "no", "no, with a reason"];
    const broker = new ConfirmationBroker(async () => {
      const next = replies.shift();
      if (next === "throw") throw new Error("terminal closed");
      return next === "no" ? { approved: false } : { approved: false, reason: "not in this folder" };
    });
    expect(await ask(broker, "shell", { command: "a" })).toEqual({
      approved: false,
      reason: "the user said no",
    });
    expect(await ask(broker, "shell", { command: "b" })).toEqual({
      approved: false,
      reason: "the user said no",
    });
    expect(await ask(broker, "shell", { command: "c" })).toEqual({
      approved: false,
      reason: "not in this folder",
    });
    expect(broker.approvals.size).toBe(0);
  });

  it("gives the person's confirm the request's own signal, and does not ask about a call cancelled while queued", async () => {
    const seen: AbortSignal[] = [];
    let release = () => {};
    const broker = new ConfirmationBroker(async (r) => {
      seen.push(r.signal);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { approved: true };
    });
    const first = new AbortController();
    const second = new AbortController();
    const a = broker.confirm(request("shell", { command: "a" }, first.signal));
    const b = broker.confirm(request("shell", { command: "b" }, second.signal));
    await new Promise((r) => setTimeout(r, 10));
    second.abort();
    release();
    expect(await a).toEqual({ approved: true });
    expect(await b).toEqual({ approved: false, reason: "the call was cancelled" });
    expect(seen).toEqual([first.signal]);
  });

  it("answers a bus's published requests with the same confirm, from the request's call", async () => {
    const bus = new MessageBus({ timeoutMs: 5_000 });
    const broker = new ConfirmationBroker(async () => ({ approved: true, always: true }));
    const stop = broker.install(bus);
    expect(await bus.confirm(request("shell", { command: "ls" }))).toEqual({ approved: true, always: true });
    expect(broker.approvals.has("shell", { command: "ls" })).toBe(true);
    stop();
    expect(bus.listenerCount).toBe(0);
  });
});
