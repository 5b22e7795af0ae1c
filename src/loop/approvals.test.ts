/**
 * The session allow-list and the broker on a real message bus: "always" covers the exact call only (an
 * adversarial table of near misses), questions are asked one at a time, a failing asker is a no.
 */
import { describe, expect, it } from "vitest";
import { MessageBus } from "../bus/index.js";
import type { ConfirmationDetails } from "../core/index.js";
import { type AskRequest, ConfirmationBroker, SessionApprovals } from "./approvals.js";

const details = (toolName: string): ConfirmationDetails => ({
  toolName,
  description: toolName,
  risk: "medium",
  locations: [],
  type: "generic",
});

/** Asks through the bus as the pipeline does: tag, then request. */
async function ask(bus: MessageBus, broker: ConfirmationBroker, name: string, args: unknown) {
  const d = details(name);
  broker.tag(d, { name, args });
  return bus.confirm(d, new AbortController().signal);
}

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
    const bus = new MessageBus({ timeoutMs: 5_000 });
    const asked: AskRequest[] = [];
    const broker = new ConfirmationBroker(bus, async (request) => {
      asked.push(request);
      return "always";
    });
    const stop = broker.install();
    expect(await ask(bus, broker, "shell", { command: "ls" })).toEqual({ approved: true, always: true });
    expect(await ask(bus, broker, "shell", { command: "ls" })).toEqual({
      approved: true,
      always: true,
      reason: "approved earlier for this session",
    });
    await ask(bus, broker, "shell", { command: "ls -a" });
    expect(asked.map((r) => r.call)).toEqual([
      { name: "shell", args: { command: "ls" } },
      { name: "shell", args: { command: "ls -a" } },
    ]);
    stop();
    expect(bus.listenerCount).toBe(0);
  });

  it("asks one question at a time, and the first answer can settle a queued identical call", async () => {
    const bus = new MessageBus({ timeoutMs: 5_000 });
    let open = 0;
    let most = 0;
    const broker = new ConfirmationBroker(bus, async () => {
      open++;
      most = Math.max(most, open);
      await new Promise((r) => setTimeout(r, 20));
      open--;
      return "always";
    });
    broker.install();
    const answers = await Promise.all([
      ask(bus, broker, "write_file", { path: "x", content: "1" }),
      ask(bus, broker, "write_file", { path: "x", content: "1" }),
      ask(bus, broker, "write_file", { path: "y", content: "1" }),
    ]);
    expect(most).toBe(1);
    expect(answers.map((a) => a.approved)).toEqual([true, true, true]);
    expect(answers[1]).toMatchObject({ reason: "approved earlier for this session" });
  });

  it("treats a failing asker, a no, and an untagged request's always as what they are", async () => {
    const bus = new MessageBus({ timeoutMs: 5_000 });
    const replies = ["throw", "no", "always"];
    const broker = new ConfirmationBroker(bus, async () => {
      const next = replies.shift();
      if (next === "throw") throw new Error("terminal closed");
      return next as "no" | "always";
    });
    broker.install();
    expect(await ask(bus, broker, "shell", { command: "a" })).toEqual({
      approved: false,
      reason: "the user said no",
    });
    expect(await ask(bus, broker, "shell", { command: "b" })).toEqual({
      approved: false,
      reason: "the user said no",
    });
    // Not tagged: approved this once, nothing remembered.
    expect(await bus.confirm(details("shell"), new AbortController().signal)).toEqual({ approved: true });
    expect(broker.approvals.size).toBe(0);
  });
});
