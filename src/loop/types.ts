/**
 * @module loop/types
 * What the agent loop is made of and what it reports: the gate surface it needs, its options, the events a
 * UI renders, and a turn's outcome. Types only.
 */
import type { MessageBus } from "../bus/index.js";
import type {
  CallResult,
  ExecuteOptions,
  FlowSession,
  Label,
  ToolCall,
  ToolRegistry,
  ToolScope,
} from "../core/index.js";
import type { ChatMessage, ChatModel, ModelErrorKind } from "../llm/index.js";
import type { PlanMethod, PlannerProfile, RoutingPlan, SkippedCall } from "../planner/index.js";
import type { ConfirmationBroker } from "./approvals.js";
import type { Transcript } from "./transcript.js";

/** The part of a `Toolgate` the loop uses (a gate satisfies it). */
export interface LoopGate {
  readonly registry: ToolRegistry;
  readonly bus: MessageBus;
  schemas(provider: string, options?: { scope?: ToolScope }): unknown[];
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  /** Adopts the newest tools (a gate whose project pool changed); `registry` then shows them. */
  tools?(): Promise<unknown>;
}

/** Something the loop did, for a UI. `agent` names the sub-agent it happened in (absent: the main one). */
export type LoopEvent = { agent?: string; depth?: number } & (
  | { type: "text"; chunk: string }
  | { type: "thinking"; chunk: string }
  | { type: "routing"; plan: RoutingPlan | null }
  | { type: "plan"; method: PlanMethod; reason: string; skipped: SkippedCall[] }
  | { type: "tool_start"; id: string; name: string; args: unknown; description: string }
  | { type: "tool_output"; id: string; name: string; chunk: string }
  | { type: "tool_end"; id: string; name: string; description: string; result: CallResult }
  | { type: "notice"; message: string }
);

/** Why a turn ended. */
export type StopReason = "answer" | "incomplete" | "step_limit" | "loop" | "cancelled" | "model_error";

/** A turn's outcome. */
export interface TurnResult {
  /** The final answer (visible text, `<think>` blocks removed), or a sentence saying why there is none. */
  answer: string;
  stopReason: StopReason;
  /** Model calls made in this turn. */
  steps: number;
  /** Every tool call run in this turn, in order. */
  calls: { name: string; args: unknown; result: CallResult }[];
  /** The model error's one-line message, when `stopReason` is `model_error` or `incomplete`. */
  error?: string;
  /** What kind of model failure ended the turn (`unreachable`, `timeout`, `incomplete`, ...). */
  errorKind?: ModelErrorKind;
  /** Tokens of the last exchange as the server counted them, and the context window, when known. */
  tokens: { used?: number; window?: number };
}

/** Options of an {@link AgentSession}. */
export interface SessionOptions {
  gate: LoopGate;
  model: ChatModel;
  /** The tools this session may call (an agent's resolved scope). Default: every registered tool. */
  scope?: ToolScope;
  /** Extra instructions (an agent definition's body), after the built-in ones. */
  instructions?: string;
  /** The workspace root, named in the instructions. */
  root?: string;
  /** Model calls per turn before stopping. Default 25. */
  maxSteps?: number;
  /** The same calls this many rounds in a row stop the turn. Default 3. */
  maxRepeats?: number;
  /** Ask the model for a routing plan before each turn (`[planner] routing`). Default false. */
  routing?: boolean;
  /** The planner profile (default: the planner's, with no default call). */
  profile?: PlannerProfile;
  /** `[planner] default_tool`: called on a first round when the reply holds no call. */
  defaultTool?: string;
  /** How the session's confirmations are answered ("always" allow-list); without one, bus listeners answer. */
  broker?: ConfirmationBroker;
  transcript?: Transcript;
  onEvent?: (event: LoopEvent) => void;
  /** Messages of an earlier conversation to continue (after the system instructions). */
  history?: ChatMessage[];
  /** The resumed conversation's context label (`flowOf(records)`); default: a clean one. */
  flow?: FlowSession;
  /**
   * The label of the tasks this session is sent when someone other than the user wrote them: a sub-agent's
   * task is its parent model's words, labelled by what the parent had read. Untrusted, a task joins the
   * context like a result and its hosts are not trusted destinations; default: the user's own words.
   */
  taskLabel?: Label;
  /**
   * The context window in tokens, a hard budget: no request the session's measure puts over it (less the
   * reply's reserve) is sent; tool results are cut to their share, the history compacted (Ollama also gets
   * it as `num_ctx`). Without one, nothing is measured until a server refuses a prompt.
   */
  contextWindow?: number;
  /** Tokens kept free for the reply (`[llm] max_tokens`); default a quarter of the window, at most 2048. */
  maxReplyTokens?: number;
  /**
   * Whether the model calls tools natively (default true). False (an Ollama model without the "tools"
   * capability): no tools payload is sent, and calls are read from its text through the planner's guard.
   */
  nativeTools?: boolean;
  /** Names events and confirmations of a sub-agent. */
  agent?: string;
  depth?: number;
}
