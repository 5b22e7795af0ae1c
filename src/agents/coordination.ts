/**
 * @module agents/coordination
 * The coordination tools: `list_available_agents` (the definitions a caller may spawn) and `spawn_agents`
 * (sub-agent executions in parallel, each at depth + 1 with its own scope resolved once at its start,
 * through the host's {@link AgentRunner}). Each child's result or failure is reported on its own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Label, Logger, StoredLabel, Tool, ToolScope } from "../core/index.js";
import {
  defineTool,
  errorResult,
  okResult,
  readStoredLabel,
  storedLabelOf,
  UNDECLARED,
} from "../core/index.js";
import type { AgentDefinition, AgentDefinitions } from "./definitions.js";
import { LIST_AVAILABLE_AGENTS, resolveTools, SPAWN_AGENTS } from "./resolve.js";

/** One sub-agent execution to run. */
export interface AgentRunRequest {
  agent: AgentDefinition;
  task: string;
  /** The child's depth (the caller's + 1). */
  depth: number;
  /** The child's frozen scope: pass it as `scope` to every call the child makes. */
  scope: ToolScope;
  /** Warnings from resolving the child's tools. */
  warnings: string[];
  /** The project root. */
  root: string;
  signal: AbortSignal;
  /**
   * The caller's context label when it spawned (docs/injection.md): the task is the caller model's words,
   * so it carries what the caller had read. The child starts with nothing else read.
   */
  taskLabel?: Label;
}

/** What one sub-agent execution produced. */
export interface AgentRunResult {
  ok: boolean;
  output: string;
  error?: string;
  /**
   * The join of what the child read (its context label, docs/injection.md): its output joins the parent's
   * context with it. A runner that gives none makes the output untrusted and private.
   */
  label?: StoredLabel;
}

/** Runs sub-agents. The host provides it (the LLM-backed runner comes with the agent loop). */
export interface AgentRunner {
  run(request: AgentRunRequest): Promise<AgentRunResult>;
}

/** What the coordination tools need from the host. */
export interface CoordinationHost {
  root: string;
  /** The project's agent definitions (read at call time, so edits apply to the next call). */
  agents(): Promise<AgentDefinitions>;
  /** The project's pool names, sorted, at this moment. */
  poolNames(): Promise<readonly string[]>;
  runner?: AgentRunner;
  logger?: Logger;
}

/** Who is calling, for calls made outside the pipeline's scope (inside a spawned child). */
interface CallerContext {
  agent: string;
  depth: number;
}

const callerContext = new AsyncLocalStorage<CallerContext>();

/** The caller's depth: the pipeline's scope when given, else the spawning child's context, else 0. */
function callerDepth(scope?: ToolScope): number {
  if (scope?.depth !== undefined) return scope.depth;
  return callerContext.getStore()?.depth ?? 0;
}

/** Creates `list_available_agents`. */
export function createListAvailableAgentsTool(host: CoordinationHost): Tool {
  return defineTool<Record<string, never>>({
    name: LIST_AVAILABLE_AGENTS,
    description: "Lists the agents you can start with spawn_agents: each agent's name and what it does.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    kind: "coordinate",
    risk: "low",
    describe: () => "list available agents",
    async run() {
      const { agents } = await host.agents();
      const list = agents.map((a) => ({ name: a.name, description: a.description }));
      const text =
        list.length === 0
          ? "No agents are defined."
          : list.map((a) => `- ${a.name}: ${a.description}`).join("\n");
      return okResult(text, text, list);
    },
  });
}

interface SpawnParams {
  agents: { agent: string; task: string }[];
}

/** Creates `spawn_agents`. */
export function createSpawnAgentsTool(host: CoordinationHost): Tool {
  const tool = defineTool<SpawnParams>({
    name: SPAWN_AGENTS,
    description:
      "Starts one or more sub-agents in parallel, each with its own task, and returns each one's result. Use list_available_agents to see which agents exist.",
    parameters: {
      type: "object",
      properties: {
        agents: {
          type: "array",
          minItems: 1,
          maxItems: 16,
          items: {
            type: "object",
            properties: {
              agent: { type: "string", description: "The agent's name" },
              task: { type: "string", description: "What the agent should do" },
            },
            required: ["agent", "task"],
            additionalProperties: false,
          },
        },
      },
      required: ["agents"],
      additionalProperties: false,
    },
    kind: "coordinate",
    risk: "medium",
    describe: (p) => `spawn ${p.agents.map((a) => a.agent).join(", ")}`,
    run: (params, context) => spawn(host, params, context.signal, context.scope, context.context?.label),
  });
  return tool as unknown as Tool;
}

async function spawn(
  host: CoordinationHost,
  params: SpawnParams,
  signal: AbortSignal,
  scope?: ToolScope,
  taskLabel?: Label,
) {
  if (!host.runner) {
    return errorResult(
      "execution_failed",
      "spawn_agents cannot start sub-agents: no agent runner is configured in this host",
    );
  }
  const runner = host.runner;
  const depth = callerDepth(scope) + 1;
  const { agents } = await host.agents();
  const names = await host.poolNames();
  const children = await Promise.all(
    params.agents.map(async ({ agent, task }) => {
      const definition = agents.find((a) => a.name === agent);
      if (!definition)
        return {
          agent,
          ok: false,
          output: "",
          error: `unknown agent ${JSON.stringify(agent)}`,
          label: storedLabelOf(undefined),
        };
      const resolution = resolveTools(definition, depth, names, host.logger);
      try {
        const result = await callerContext.run({ agent, depth }, () =>
          runner.run({
            agent: definition,
            task,
            depth,
            scope: resolution.scope,
            warnings: resolution.warnings,
            root: host.root,
            signal,
            ...(taskLabel ? { taskLabel } : {}),
          }),
        );
        const child: { agent: string; ok: boolean; output: string; error?: string; label: StoredLabel } = {
          agent,
          ok: result.ok === true,
          output: String(result.output ?? ""),
          label: readStoredLabel(result.label),
        };
        if (!child.ok) child.error = result.error ?? "the agent reported a failure";
        return child;
      } catch (error) {
        // It may have read anything before it failed: its words are labelled closed.
        return {
          agent,
          ok: false,
          output: "",
          error: (error as Error).message,
          label: { ...UNDECLARED, sources: [] },
        };
      }
    }),
  );
  const text = children
    .map((c, i) =>
      c.ok
        ? `## ${i + 1}. ${c.agent}: succeeded\n${c.output}`
        : `## ${i + 1}. ${c.agent}: failed\n${c.error}${c.output ? `\n${c.output}` : ""}`,
    )
    .join("\n\n");
  const failed = children.filter((c) => !c.ok).length;
  const summary = `${children.length - failed} of ${children.length} sub-agent(s) succeeded`;
  // Every child failed: the call failed (the caller must not read it as done); the report still says why.
  if (children.length > 0 && failed === children.length)
    return { ...errorResult("execution_failed", `${summary}\n\n${text}`), data: children };
  return okResult(`${summary}\n\n${text}`, summary, children);
}
