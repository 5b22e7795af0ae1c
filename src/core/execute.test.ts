import { describe, expect, it } from "vitest";
import { MessageBus } from "../bus/index.js";
import { pipelineFixture as setup } from "../test-support/pipeline.js";
import { MemoryAuditSink } from "./audit.js";
import { defineTool } from "./define-tool.js";
import { okResult } from "./errors.js";
import { executeCall, type PipelineDeps } from "./execute.js";
import type { ConfirmationRequest, Decider, Decision, ToolScope } from "./types.js";

describe("executeCall: the one pipeline", () => {
  it("runs an allowed call without asking and streams output", async () => {
    const { deps, ran } = setup();
    const chunks: string[] = [];
    const r = await executeCall(
      deps,
      { name: "echo", args: { text: "hi" } },
      { onOutput: (c) => chunks.push(c) },
    );
    expect(r).toMatchObject({
      ok: true,
      llmContent: "hi",
      returnDisplay: "hi",
      decision: "allow",
      rule: "t#echo",
    });
    expect(ran).toEqual(["hi"]);
    expect(chunks).toEqual(["chunk:hi"]);
  });

  it("blocks a denied call and returns a typed error", async () => {
    const { deps, ran } = setup({ echo: "deny" });
    const r = await executeCall(deps, { name: "echo", args: { text: "hi" } });
    expect(r.ok).toBe(false);
    expect(r.error).toEqual({ type: "denied_by_policy", message: "echo was denied: table says deny" });
    expect(r.decision).toBe("deny");
    expect(ran).toEqual([]);
  });

  it("asks through the bus for ask and runs only on an explicit yes", async () => {
    const bus = new MessageBus();
    const asked: unknown[] = [];
    bus.onConfirmation((req) => {
      asked.push(req.details);
      return { approved: true };
    });
    const { deps, ran } = setup({ write_file: "ask" }, { confirmer: bus });
    const r = await executeCall(deps, { name: "write_file", args: { path: "/p/a.txt" } });
    expect(r.ok).toBe(true);
    expect(ran).toEqual(["write:/p/a.txt"]);
    expect(asked).toEqual([
      {
        toolName: "write_file",
        description: "write /p/a.txt",
        risk: "medium",
        locations: ["/p/a.txt"],
        type: "edit",
        diff: "--- a\n+++ b\n",
        reason: "table says ask",
        rule: "t#write_file",
        sandbox: "none (write_file is not a shell command; toolgate runs it itself)",
      },
    ]);
  });

  it("treats a refusal, no listener, no confirmer and a timeout as deny", async () => {
    const refusing = new MessageBus();
    refusing.onConfirmation(() => ({ approved: false, reason: "not today" }));
    const silent = new MessageBus();
    silent.onConfirmation(() => undefined);
    // The ask's expiry is the pipeline's (`confirmTimeoutMs`, the gate's `[confirm] timeout_ms`): a day
    // where an answer is expected (so a slow machine cannot turn it into an expiry), 10 ms where none comes.
    const day = 86_400_000;
    const cases: [PipelineDeps["confirmer"], number, string][] = [
      [refusing, day, "write_file was denied: it was not approved: not today"],
      [
        new MessageBus(),
        day,
        "write_file was denied: it was not approved: no one was available to approve it",
      ],
      [undefined, day, "write_file was denied: it needs approval and no one was available to approve it"],
      [silent, 10, "write_file was denied: it was not approved: no answer within 10 ms"],
    ];
    for (const [confirmer, confirmTimeoutMs, message] of cases) {
      const { deps, ran } = setup(
        { write_file: "ask" },
        { confirmTimeoutMs, ...(confirmer ? { confirmer } : {}) },
      );
      const r = await executeCall(deps, { name: "write_file", args: { path: "x" } });
      expect(r.error).toEqual({ type: "denied_by_policy", message });
      expect(ran).toEqual([]);
    }
  });

  it("gives a call's own confirm the request: call id, call, details, agent and a signal the call's aborts", async () => {
    const bus = new MessageBus();
    bus.onConfirmation(() => {
      throw new Error("the bus must not be asked when the call brings its own confirm");
    });
    const { deps, ran } = setup({ write_file: "ask" }, { confirmer: bus });
    const requests: ConfirmationRequest[] = [];
    const controller = new AbortController();
    const scope: ToolScope = { tools: new Set(["write_file"]), agent: "writer", depth: 1 };
    const call = { name: "write_file", args: { path: "/p/b.txt" }, id: "call-7" };
    const r = await executeCall(deps, call, {
      signal: controller.signal,
      scope,
      confirm: async (request) => {
        requests.push(request);
        return { approved: true };
      },
    });
    expect(r.ok).toBe(true);
    expect(ran).toEqual(["write:/p/b.txt"]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      callId: "call-7",
      call,
      agent: "writer",
      details: {
        toolName: "write_file",
        description: "write /p/b.txt",
        agent: "writer",
        rule: "t#write_file",
      },
    });
    // The question's signal follows the call's (and also aborts once the ask is settled some other way).
    expect(requests[0]!.signal.aborted).toBe(true);
    const later = new AbortController();
    const gone = new Error("the user left");
    const reasons: unknown[] = [];
    const cancelled = await executeCall(
      deps,
      { ...call, id: "call-8" },
      {
        signal: later.signal,
        scope,
        confirm: (request) =>
          new Promise((resolve) => {
            reasons.push(request.signal.aborted);
            request.signal.addEventListener("abort", () => {
              reasons.push(request.signal.reason);
              resolve({ approved: false });
            });
            later.abort(gone);
          }),
      },
    );
    expect(reasons).toEqual([false, gone]);
    expect(cancelled.error?.type).toBe("cancelled");
  });

  it("makes up a call id when the caller gave none, and publishes the same request on the bus", async () => {
    const bus = new MessageBus();
    const published: unknown[] = [];
    bus.onConfirmation((request) => {
      published.push(request);
      return { approved: false, reason: "not now" };
    });
    const { deps } = setup({ write_file: "ask" }, { confirmer: bus });
    const r = await executeCall(deps, { name: "write_file", args: { path: "x" } });
    expect(r.error?.message).toBe("write_file was denied: it was not approved: not now");
    expect(published).toEqual([
      expect.objectContaining({
        callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        call: { name: "write_file", args: { path: "x" } },
        details: expect.objectContaining({ toolName: "write_file" }),
        signal: expect.any(AbortSignal),
        id: expect.any(String),
      }),
    ]);
    expect(published[0]).not.toHaveProperty("agent");
  });

  it("cancels the call when its signal aborts while the confirmation is pending, even if confirm ignores it", async () => {
    const { deps, ran } = setup({ write_file: "ask" });
    const controller = new AbortController();
    let asked: () => void = () => {};
    const pending = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const result = executeCall(
      deps,
      { name: "write_file", args: { path: "x" } },
      {
        signal: controller.signal,
        confirm: () => {
          asked();
          return new Promise(() => {}); // never answers, never looks at the signal
        },
      },
    );
    await pending;
    controller.abort();
    const r = await result;
    expect(r.error).toEqual({
      type: "cancelled",
      message: "write_file was cancelled while waiting for approval",
    });
    expect(ran).toEqual([]);
  });

  it("gives two concurrent calls each their own request, answered separately", async () => {
    const { deps, ran } = setup({ write_file: "ask" });
    const waiting = new Map<string, (answer: { approved: boolean; reason?: string }) => void>();
    const seen: ConfirmationRequest[] = [];
    let both: () => void = () => {};
    const bothAsked = new Promise<void>((resolve) => {
      both = resolve;
    });
    const confirm = (request: ConfirmationRequest) =>
      new Promise<{ approved: boolean; reason?: string }>((resolve) => {
        seen.push(request);
        waiting.set(request.callId, resolve);
        if (waiting.size === 2) both();
      });
    const a = new AbortController();
    const b = new AbortController();
    const first = executeCall(
      deps,
      { name: "write_file", args: { path: "a" }, id: "a" },
      { signal: a.signal, confirm },
    );
    const second = executeCall(
      deps,
      { name: "write_file", args: { path: "b" }, id: "b" },
      { signal: b.signal, confirm },
    );
    await bothAsked;
    expect(seen.map((r) => [r.callId, r.details.description, r.signal.aborted])).toEqual([
      ["a", "write a", false],
      ["b", "write b", false],
    ]);
    waiting.get("b")!({ approved: false, reason: "not b" });
    waiting.get("a")!({ approved: true });
    expect((await first).ok).toBe(true);
    expect((await second).error?.message).toBe("write_file was denied: it was not approved: not b");
    expect(ran).toEqual(["write:a"]);
  });

  it("denies when the call's confirm rejects", async () => {
    const { deps, ran } = setup({ write_file: "ask" });
    const r = await executeCall(
      deps,
      { name: "write_file", args: { path: "x" } },
      { confirm: async () => Promise.reject(new Error("terminal gone")) },
    );
    expect(r.error).toEqual({
      type: "denied_by_policy",
      message: "write_file was denied: the confirmation failed (terminal gone)",
    });
    expect(ran).toEqual([]);
  });

  it("refuses unknown tools and tools outside the scope with the same 'tool not found' (no pool listing)", async () => {
    const { deps, seen } = setup();
    const scope: ToolScope = { tools: new Set(["echo"]), agent: "researcher", depth: 1 };
    const outside = await executeCall(deps, { name: "write_file", args: { path: "x" } }, { scope });
    const unknown = await executeCall(deps, { name: "nope", args: {} });
    expect(outside.error).toEqual({ type: "tool_not_found", message: 'tool not found: "write_file"' });
    expect(unknown.error).toEqual({ type: "tool_not_found", message: 'tool not found: "nope"' });
    expect(outside.llmContent).not.toContain("echo");
    expect(seen).toEqual([]);
  });

  it("validates arguments before the policy sees them", async () => {
    const { deps, seen, ran } = setup();
    const r = await executeCall(deps, { name: "echo", args: { text: 5, other: 1 } });
    expect(r.error?.type).toBe("invalid_params");
    expect(r.error?.message).toBe(
      "invalid arguments for echo: unknown parameter 'other'; parameter 'text' must be a string",
    );
    expect(seen).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("drops the nulls a strict-mode model sends for optional arguments", async () => {
    const { deps, ran } = setup();
    const r = await executeCall(deps, { name: "write_file", args: { path: "p", mode: null } });
    expect(r.ok).toBe(true);
    expect(ran).toEqual(["write:p"]);
  });

  it("accepts arguments as a JSON string and refuses malformed JSON", async () => {
    const { deps } = setup();
    expect((await executeCall(deps, { name: "echo", args: '{"text":"s"}' })).llmContent).toBe("s");
    const bad = await executeCall(deps, { name: "echo", args: '{"text":' });
    expect(bad.error?.type).toBe("invalid_params");
    expect(bad.error?.message).toMatch(/^arguments for echo are not valid JSON: /);
  });

  it("turns a thrown error into an execution_failed result (tools never throw to the caller)", async () => {
    const { deps } = setup();
    const r = await executeCall(deps, { name: "boom" });
    expect(r.error).toEqual({ type: "execution_failed", message: "boom failed: kaput" });
    expect(r.llmContent).toBe("Error (execution_failed): boom failed: kaput");
  });

  it("keeps the type of a deliberate failure", async () => {
    const { deps } = setup();
    const r = await executeCall(deps, { name: "missing" });
    expect(r.error).toEqual({
      type: "file_not_found",
      message: "file not found: /x",
      details: { path: "/x" },
    });
  });

  it("returns a cancellation error when aborted", async () => {
    const { deps } = setup();
    const controller = new AbortController();
    const pending = executeCall(deps, { name: "slow" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const r = await pending;
    expect(r.error?.type).toBe("cancelled");
    const before = await executeCall(
      deps,
      { name: "echo", args: { text: "x" } },
      { signal: AbortSignal.abort() },
    );
    expect(before.error?.type).toBe("cancelled");
  });

  it("tells the tool who is calling (the caller's scope)", async () => {
    const { deps } = setup();
    let seen: ToolScope | undefined;
    deps.registry.register(
      defineTool({
        name: "whoami",
        description: "Reports the caller's agent",
        kind: "think",
        risk: "low",
        parameters: { type: "object", properties: {} },
        run: async (_p, ctx) => {
          seen = ctx.scope;
          return okResult(ctx.scope?.agent ?? "nobody");
        },
      }),
    );
    const scope: ToolScope = { tools: new Set(["whoami"]), agent: "researcher", depth: 1 };
    expect((await executeCall(deps, { name: "whoami" }, { scope })).llmContent).toBe("researcher");
    expect(seen).toBe(scope);
    expect((await executeCall(deps, { name: "whoami" })).llmContent).toBe("nobody");
  });

  it("truncates large output within the limits", async () => {
    const { deps } = setup({}, { limits: { maxChars: 1000, maxLines: 100 } });
    const r = await executeCall(deps, { name: "big" });
    expect(r.llmContent.length).toBeLessThanOrEqual(1000);
    expect(r.llmContent).toContain("output truncated");
  });

  it("fails closed when the decider throws", async () => {
    const { deps, ran } = setup();
    deps.decider = {
      decide: async () => {
        throw new Error("policy exploded");
      },
    };
    const r = await executeCall(deps, { name: "echo", args: { text: "x" } });
    expect(r.error?.type).toBe("denied_by_policy");
    expect(r.error?.message).toContain("the policy could not decide (policy exploded); denied");
    expect(ran).toEqual([]);
  });

  it("writes one audit record per call, with a digest instead of the arguments", async () => {
    const audit = new MemoryAuditSink();
    const { deps } = setup({ boom: "deny" }, { audit });
    await executeCall(deps, { name: "echo", args: { text: "secret-value" }, id: "c1" });
    await executeCall(deps, { name: "boom" });
    await executeCall(deps, { name: "nope" });
    expect(audit.records.map((r) => [r.tool, r.callId, r.decision, r.rule, r.outcome])).toEqual([
      ["echo", "c1", "allow", "t#echo", "ok"],
      ["boom", undefined, "deny", "t#boom", "denied_by_policy"],
      ["nope", undefined, null, null, "tool_not_found"],
    ]);
    expect(JSON.stringify(audit.records)).not.toContain("secret-value");
    expect(audit.records[0]!.argsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("executeCall: what runs is what was checked", () => {
  /** A decider that checked `text` in another form. */
  const rewriting = (decision: Decision, text: unknown): Decider => ({
    decide: async (req) => ({ decision, risk: req.risk, reason: "checked", checkedArgs: { text } }),
  });

  it("builds the call again from the decision's checkedArgs: the tool runs them, the result says so", async () => {
    const { deps, ran } = setup();
    deps.decider = rewriting("allow", "as checked");
    const r = await executeCall(deps, { name: "echo", args: { text: "as given" } });
    expect(ran).toEqual(["as checked"]);
    expect(r.llmContent).toBe("[ran as the policy checked it — text: as checked]\nas checked");
    expect(r.returnDisplay).toBe("[ran as the policy checked it — text: as checked]\nas checked");
  });

  it("asks the person about the checked form, and runs that form once approved", async () => {
    const { deps, ran } = setup();
    deps.decider = rewriting("ask", "as checked");
    let shown: string | undefined;
    const r = await executeCall(
      deps,
      { name: "echo", args: { text: "as given" } },
      {
        confirm: async (request) => {
          shown = request.details.description;
          return { approved: true };
        },
      },
    );
    expect(shown).toBe("echo as checked");
    expect(r.ok).toBe(true);
    expect(ran).toEqual(["as checked"]);
  });

  it("denies when the checked form does not validate, and runs nothing", async () => {
    const { deps, ran } = setup();
    deps.decider = rewriting("allow", 42);
    const r = await executeCall(deps, { name: "echo", args: { text: "as given" } });
    expect(r.error?.type).toBe("denied_by_policy");
    expect(r.error?.message).toContain("its arguments as the policy checked them could not be prepared");
    expect(ran).toEqual([]);
  });
});
