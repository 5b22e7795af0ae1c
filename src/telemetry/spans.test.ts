/**
 * toolgate's spans recorded by the OpenTelemetry SDK's in-memory exporter: a tool call through a real gate
 * becomes an `execute_tool` span with the GenAI attributes and the policy's, inside a turn's `invoke_agent`
 * span; with no tracer provider registered, nothing is recorded.
 */

import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FlowSession } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { createToolgate } from "../toolgate.js";
import { withTurnSpan } from "./spans.js";

let fixture: PolicyGate;
let gate: PolicyGate["gate"];
let approve = true;
const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  fixture = await policyGate("otel");
  gate = fixture.gate;
  gate.bus.onConfirmation(async () => (approve ? { approved: true } : { approved: false, reason: "no" }));
});
afterAll(async () => {
  await fixture?.close();
});

function register(): void {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  context.setGlobalContextManager(contextManager.enable());
}
afterEach(() => {
  trace.disable();
  context.disable();
  exporter.reset();
});

const attrs = (span: ReadableSpan) => span.attributes;

describe("OpenTelemetry spans", () => {
  it("records each call as an execute_tool span inside the turn's invoke_agent span", async () => {
    register();
    approve = true;
    const results = await withTurnSpan({ agent: "helper", provider: "openai", model: "m1" }, async () => {
      const ok = await gate.execute({ id: "call_1", name: "greet", args: { what: "ada" } });
      const asked = await gate.execute({ id: "call_2", name: "launch", args: { what: "it" } });
      const denied = await gate.execute({ id: "call_3", name: "nope", args: {} });
      return { stopReason: "done", ok, asked, denied };
    });
    expect(results.ok.llmContent).toBe("greet did ada");
    expect(results.asked.llmContent).toBe("launch did it");
    const spans = exporter.getFinishedSpans();
    const turn = spans.find((s) => s.name === "invoke_agent helper")!;
    expect(attrs(turn)).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "helper",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "m1",
      "toolgate.stop_reason": "done",
    });
    const tools = spans.filter((s) => s.name.startsWith("execute_tool "));
    expect(tools.map((s) => s.name)).toEqual([
      "execute_tool greet",
      "execute_tool launch",
      "execute_tool nope",
    ]);
    for (const s of tools) {
      expect(s.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
      expect(s.spanContext().traceId).toBe(turn.spanContext().traceId);
    }
    expect(attrs(tools[0]!)).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "greet",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.id": "call_1",
      "toolgate.decision": "allow",
      "toolgate.rule": expect.any(String),
      "toolgate.risk": "low",
      "toolgate.outcome": "ok",
      // A host tool that declares no label: untrusted and private.
      "toolgate.label.integrity": "untrusted",
      "toolgate.label.confidentiality": "private",
      "toolgate.label.sources": ["greet"],
    });
    expect(attrs(tools[1]!)).toMatchObject({ "toolgate.decision": "ask", "toolgate.outcome": "ok" });
    expect(attrs(tools[2]!)).toMatchObject({
      "gen_ai.tool.call.id": "call_3",
      "toolgate.outcome": "tool_not_found",
      "error.type": "tool_not_found",
    });
    expect(tools[2]!.status.code).toBe(2);
    // The span lasts as long as the call: its duration is the one the result reports.
    const ms = (s: ReadableSpan) => s.duration[0] * 1000 + s.duration[1] / 1e6;
    expect(Math.abs(ms(tools[0]!) - results.ok.durationMs)).toBeLessThan(1.5);
  });

  it("records the context label that changed a decision: its levels, the sink and the effect", async () => {
    register();
    approve = false;
    const session = FlowSession.from({
      label: {
        integrity: "untrusted",
        confidentiality: "public",
        sources: [
          { tool: "web_fetch", integrity: "untrusted", confidentiality: "public", what: "x.example" },
        ],
      },
    });
    await gate.execute({ id: "c", name: "launch", args: { what: "it" } }, { session });
    const [span] = exporter.getFinishedSpans();
    expect(attrs(span!)).toMatchObject({
      "toolgate.decision": "ask",
      "toolgate.label.flow": "ask",
      "toolgate.label.context.integrity": "untrusted",
      "toolgate.label.context.confidentiality": "public",
      "toolgate.label.sink": "launch may send data out (a execute tool)",
    });
  });

  it("records a refused ask and a policy deny with their outcome", async () => {
    register();
    approve = false;
    const refused = await gate.execute({ id: "c", name: "launch", args: { what: "it" } });
    expect(refused.ok).toBe(false);
    const [span] = exporter.getFinishedSpans();
    expect(attrs(span!)).toMatchObject({
      "gen_ai.tool.name": "launch",
      "toolgate.decision": "ask",
      "toolgate.outcome": "denied_by_policy",
      "toolgate.risk": "high",
    });
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it("records nothing when no tracer provider is registered", async () => {
    approve = true;
    const result = await withTurnSpan({}, () =>
      gate.execute({ id: "c", name: "greet", args: { what: "x" } }),
    );
    expect(result.llmContent).toBe("greet did x");
    register();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("marks a turn that throws as failed and rethrows", async () => {
    register();
    await expect(
      withTurnSpan({ agent: "a" }, async () => {
        throw new Error("model down");
      }),
    ).rejects.toThrow("model down");
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe("invoke_agent a");
    expect(span!.status).toEqual({ code: 2, message: "model down" });
  });

  it("names the hooks that ran on the call's span, what each said, and one event per hook run", async () => {
    register();
    const root = await tempWorkspace({ "notes.txt": "hello\n" });
    const home = await mkdtemp(join(tmpdir(), "tg-otel-home-"));
    const scan = join(home, "scan.sh");
    await writeFile(scan, `#!/bin/sh\ncat >/dev/null\necho '{"additionalContext":"scanned"}'\n`, {
      mode: 0o755,
    });
    const hooked = await createToolgate({
      roots: [root],
      policyText: 'default = "allow"\n',
      config: {
        hooks: [
          { name: "quiet", event: "pre_tool", tools: ["read_file"], command: "cat >/dev/null" },
          { name: "no-ls", event: "pre_tool", tools: ["ls"], command: "echo 'not today' >&2; exit 2" },
          { name: "broken", event: "pre_tool", tools: ["glob"], command: "exit 7" },
          { name: "scan", event: "post_tool", tools: ["read_file"], command: scan },
        ],
      },
      hooks: { home },
    });
    try {
      const read = await hooked.execute({ id: "r", name: "read_file", args: { path: "notes.txt" } });
      expect(read.ok).toBe(true);
      const ls = await hooked.execute({ id: "l", name: "ls", args: { path: "." } });
      expect(ls.decision).toBe("deny");
      const glob = await hooked.execute({ id: "g", name: "glob", args: { pattern: "*" } });
      expect(glob.decision).toBe("deny");
    } finally {
      await hooked.close();
    }
    const [readSpan, lsSpan, globSpan] = exporter.getFinishedSpans();
    expect(attrs(readSpan!)).toMatchObject({
      "toolgate.hooks": ["quiet", "scan"],
      "toolgate.hooks.decisions": ["none", "none"],
      "toolgate.hooks.failed": false,
    });
    expect(readSpan!.events.map((e) => e.attributes)).toEqual([
      {
        "toolgate.hook.name": "quiet",
        "toolgate.hook.source": "the config option#hooks[0]",
        "toolgate.hook.event": "pre_tool",
        "toolgate.hook.duration_ms": expect.any(Number),
      },
      {
        "toolgate.hook.name": "scan",
        "toolgate.hook.source": "the config option#hooks[3]",
        "toolgate.hook.event": "post_tool",
        "toolgate.hook.duration_ms": expect.any(Number),
      },
    ]);
    expect(attrs(lsSpan!)).toMatchObject({
      "toolgate.hooks": ["no-ls"],
      "toolgate.hooks.decisions": ["deny"],
      "toolgate.outcome": "denied_by_policy",
    });
    expect(lsSpan!.events[0]?.attributes).toMatchObject({
      "toolgate.hook.decision": "deny",
      "toolgate.hook.reason": "not today",
    });
    expect(attrs(globSpan!)).toMatchObject({
      "toolgate.hooks.decisions": ["failed"],
      "toolgate.hooks.failed": true,
    });
    expect(globSpan!.events[0]?.attributes?.["toolgate.hook.failure"]).toBe("exited with status 7");
  });
});
