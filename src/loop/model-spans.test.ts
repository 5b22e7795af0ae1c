/**
 * A turn's OpenTelemetry spans (issue 30): each request to the model is a `chat <model>` client span with the
 * provider, the model, the reply's token counts and finish reason, a child of the turn's `invoke_agent`
 * span beside the turn's `execute_tool` spans; every span comes from the scope `toolgate` with the
 * package's version. A real session against the local stand-in server, recorded by the SDK's in-memory
 * exporter.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../llm/testdata/model-server.js";
import { REPO_ROOT } from "../test-support/cli.js";
import type { Toolgate } from "../toolgate.js";
import { AgentSession } from "./session.js";
import { makeGate, makeWorkspace, modelOf, removeWorkspace } from "./testdata/harness.js";

const exporter = new InMemorySpanExporter();
let server: ModelServer;
let root: string;
let gate: Toolgate;

beforeAll(async () => {
  server = await startModelServer(["test-model"]);
  root = await makeWorkspace({ "notes.txt": "hello\n" });
  gate = await makeGate(root, 'default = "deny"\n[[rules]]\ntool = "read_file"\ndecision = "allow"\n');
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await gate.close();
  await removeWorkspace(root);
  await server.close();
});

describe("a turn's spans", () => {
  it("has a chat span per model request, beside the tool spans, under the turn, all scoped toolgate@version", async () => {
    server.push(
      {
        toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }],
        usage: { prompt: 120, completion: 9 },
      },
      { text: "It says hello.", usage: { prompt: 150, completion: 4 } },
    );
    const session = new AgentSession({ gate, model: modelOf(server, "ollama"), root });
    const turn = await session.send("what does notes.txt say?");
    expect(turn.answer).toBe("It says hello.");

    const spans = exporter.getFinishedSpans();
    const byStart = [...spans].sort((a, b) =>
      Number(a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]),
    );
    const turnSpan = spans.find((s) => s.name.startsWith("invoke_agent"))!;
    const children = byStart.filter((s) => s !== turnSpan);
    expect(children.map((s) => s.name)).toEqual([
      "chat test-model",
      "execute_tool read_file",
      "chat test-model",
    ]);
    for (const s of children) expect(s.parentSpanContext?.spanId).toBe(turnSpan.spanContext().spanId);

    const [first, , second] = children as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(first.kind).toBe(2); // SpanKind.CLIENT
    expect(first.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "ollama",
      "gen_ai.request.model": "test-model",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 9,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(second.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 150,
      "gen_ai.usage.output_tokens": 4,
    });

    const { version } = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    for (const s of spans) expect(s.instrumentationScope).toEqual({ name: "toolgate", version });
  });

  it("marks a model request that fails as a failed chat span", async () => {
    exporter.reset();
    server.push({ error: { status: 400, message: "bad request from the test" } });
    const session = new AgentSession({ gate, model: modelOf(server, "ollama"), root });
    await session.send("anything").catch(() => undefined);
    const chat = exporter.getFinishedSpans().find((s) => s.name === "chat test-model")!;
    expect(chat.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(chat.status.message).toContain("bad request from the test");
  });
});
