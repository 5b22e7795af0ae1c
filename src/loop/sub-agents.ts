/**
 * @module loop/sub-agents
 * The runner behind `spawn_agents`: each child is this loop, at depth + 1, with the scope resolved for it
 * at its start. Its confirmations go through the parent's bus (the pipeline tags them with the child's
 * name), its events reach the parent's UI tagged the same way, its transcript is its own file (linked
 * from the parent's), and its final answer is the tool result — shaped to the parent's window like any
 * other. Each child keeps to the same context window with a budget of its own. Children talk to the
 * runner's current model: `useModel` (chat's `/model`) switches the children started after it.
 */
import type { AgentRunner, AgentRunResult } from "../agents/index.js";
import { storedLabelOf } from "../core/index.js";
import type { ChatModel } from "../llm/index.js";
import type { PlannerProfile } from "../planner/index.js";
import type { ConfirmationBroker } from "./approvals.js";
import { AgentSession, currentTranscript } from "./session.js";
import { Transcript } from "./transcript.js";
import type { LoopEvent, LoopGate } from "./types.js";

export interface AgentRunnerOptions {
  gate: LoopGate;
  model: ChatModel;
  root: string;
  /** Where children's transcripts go; none when absent. */
  sessionsDir?: string;
  broker?: ConfirmationBroker;
  onEvent?: (event: LoopEvent) => void;
  maxSteps?: number;
  routing?: boolean;
  profile?: PlannerProfile;
  defaultTool?: string;
  onWarning?: (message: string) => void;
  /** The context window children work in (compaction, Ollama `num_ctx`), as the parent's. */
  contextWindow?: number;
  /** Tokens kept free for a reply (`[llm] max_tokens`). */
  maxReplyTokens?: number;
  /** False for a model that cannot call tools natively (see {@link SessionOptions.nativeTools}). */
  nativeTools?: boolean;
}

/** A runner whose model can be switched for the children started from now on. */
export interface LoopAgentRunner extends AgentRunner {
  /** The model children talk to. */
  readonly model: ChatModel;
  useModel(model: ChatModel, options?: { nativeTools?: boolean; contextWindow?: number }): void;
}

/**
 * Creates the runner `spawn_agents` uses: the gate's (`gate.attachProjectTools(runner)`), or one a host gives
 * to `createSpawnAgentsTool`.
 * @example gate.attachProjectTools(createAgentRunner({ gate, model, root }))
 */
export function createAgentRunner(options: AgentRunnerOptions): LoopAgentRunner {
  let model = options.model;
  let nativeTools = options.nativeTools;
  let contextWindow = options.contextWindow;
  return {
    get model() {
      return model;
    },
    useModel(next, switched = {}) {
      model = next;
      nativeTools = switched.nativeTools;
      if (switched.contextWindow) contextWindow = switched.contextWindow;
    },
    async run(request): Promise<AgentRunResult> {
      const parent = currentTranscript.getStore();
      const transcript = options.sessionsDir
        ? await Transcript.create(
            options.sessionsDir,
            `${request.agent.name}-d${request.depth}`,
            options.onWarning,
          )
        : undefined;
      for (const warning of request.warnings)
        options.onEvent?.({
          type: "notice",
          message: warning,
          agent: request.agent.name,
          depth: request.depth,
        });
      const session = new AgentSession({
        gate: options.gate,
        model,
        scope: request.scope,
        root: options.root,
        agent: request.agent.name,
        depth: request.depth,
        instructions: request.agent.instructions,
        ...(options.broker ? { broker: options.broker } : {}),
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(transcript ? { transcript } : {}),
        ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        ...(options.routing !== undefined ? { routing: options.routing } : {}),
        ...(options.profile ? { profile: options.profile } : {}),
        ...(options.defaultTool ? { defaultTool: options.defaultTool } : {}),
        // A child has a budget of its own in the same window: it runs while its parent waits for it.
        ...(contextWindow ? { contextWindow } : {}),
        ...(options.maxReplyTokens ? { maxReplyTokens: options.maxReplyTokens } : {}),
        ...(nativeTools === false ? { nativeTools } : {}),
        // It starts with nothing read; its task is its parent's words, labelled by what the parent had read.
        ...(request.taskLabel ? { taskLabel: request.taskLabel } : {}),
      });
      const result = await session.send(request.task, { signal: request.signal });
      await transcript?.flush();
      const ok = result.stopReason === "answer";
      if (transcript)
        parent?.write({
          type: "sub_agent",
          agent: request.agent.name,
          depth: request.depth,
          file: transcript.file,
          ok,
        });
      // The child started clean: what it read is its label, and its answer joins the parent's context with it.
      const label = storedLabelOf(session.flow.label);
      if (ok) return { ok: true, output: result.answer, label };
      return {
        ok: false,
        output: "",
        error: `the agent stopped (${result.stopReason}): ${result.answer}`,
        label,
      };
    },
  };
}
