/**
 * @module test-support/pipeline
 * The pipeline's tests' registry and decider: a decider answering from a table (tool name → decision,
 * default allow) and six tools — `echo` (streams), `write_file` (an edit with a diff), `boom` (throws),
 * `missing` (a typed failure), `slow` (waits for abort), `big` (long output) — with a record of what ran.
 */
import {
  type Decider,
  type Decision,
  defineTool,
  okResult,
  type PipelineDeps,
  type PolicyDecision,
  ToolFailure,
  ToolRegistry,
} from "../core/index.js";

/** A decider answering from a table: tool name → decision (default allow). */
export function tableDecider(table: Record<string, Decision>, seen: string[] = []): Decider {
  return {
    async decide(req): Promise<PolicyDecision> {
      seen.push(req.tool.name);
      const decision = table[req.tool.name] ?? "allow";
      return {
        decision,
        risk: req.risk,
        reason: `table says ${decision}`,
        rule: { id: `t#${req.tool.name}`, source: "t", index: 1 },
      };
    },
  };
}

/**
 * A registry of the six tools behind a table decider; `extra` adds or replaces pipeline deps.
 * @example const { deps, ran } = pipelineFixture({ write_file: "ask" }, { confirmer: bus });
 */
export function pipelineFixture(decisions: Record<string, Decision> = {}, extra: Partial<PipelineDeps> = {}) {
  const registry = new ToolRegistry({ logger: { warn: () => undefined } });
  const ran: string[] = [];
  registry.register(
    defineTool<{ text: string }>({
      name: "echo",
      description: "Echoes text",
      kind: "think",
      risk: "low",
      parameters: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      describe: (p) => `echo ${p.text}`,
      run: async ({ text }, ctx) => {
        ran.push(text);
        ctx.updateOutput?.(`chunk:${text}`);
        return okResult(text);
      },
    }),
  );
  registry.register(
    defineTool<{ path: string }>({
      name: "write_file",
      description: "Writes",
      kind: "edit",
      risk: "medium",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, mode: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      },
      describe: (p) => `write ${p.path}`,
      locations: (p) => [p.path],
      confirmation: () => ({ diff: "--- a\n+++ b\n" }),
      run: async ({ path }) => {
        ran.push(`write:${path}`);
        return okResult(`wrote ${path}`);
      },
    }),
  );
  registry.register(
    defineTool({
      name: "boom",
      description: "Throws",
      kind: "execute",
      risk: "high",
      parameters: { type: "object", properties: {} },
      run: async () => {
        throw new Error("kaput");
      },
    }),
  );
  registry.register(
    defineTool({
      name: "missing",
      description: "Fails on purpose",
      kind: "read",
      risk: "low",
      parameters: { type: "object", properties: {} },
      run: async () => {
        throw new ToolFailure("file_not_found", "file not found: /x", { path: "/x" });
      },
    }),
  );
  registry.register(
    defineTool({
      name: "slow",
      description: "Waits for abort",
      kind: "execute",
      risk: "low",
      parameters: { type: "object", properties: {} },
      run: (_p, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () =>
            reject(Object.assign(new Error("aborted"), { name: "AbortError" })),
          );
        }),
    }),
  );
  registry.register(
    defineTool({
      name: "big",
      description: "Prints a lot",
      kind: "read",
      risk: "low",
      parameters: { type: "object", properties: {} },
      run: async () => okResult("line\n".repeat(10_000)),
    }),
  );
  const seen: string[] = [];
  const deps: PipelineDeps = { registry, decider: tableDecider(decisions, seen), ...extra };
  return { deps, ran, seen };
}
