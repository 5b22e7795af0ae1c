/**
 * @module loop/session
 * The agent loop: system instructions + the scope's tool schemas → model reply → the planner cascade
 * (routing fan-out, native calls, structured calls in text, guarded text extraction) → every call through
 * the pipeline → results back as tool messages (shaped to the context window) → again, until a final
 * answer, the step limit, repeated identical calls, or cancellation. Every request is measured against the
 * window first; an overflow the server reports is recovered from once (`keeper.ts`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { FlowSession, isTainted } from "../core/index.js";
import {
  type ChatMessage,
  type ChatModel,
  type ChatReply,
  ModelError,
  type ModelToolCall,
  structuredReader,
} from "../llm/index.js";
import {
  DEFAULT_PROFILE,
  mergeProfiles,
  type PlannerProfile,
  type PlanResult,
  parseNativeCalls,
  plan,
  type RoutingPlan,
  splitThinking,
  stripThinking,
} from "../planner/index.js";
import { withModelSpan, withTurnSpan } from "../telemetry/index.js";
import { canonicalJson } from "../utils/index.js";
import { ContextKeeper } from "./keeper.js";
import { systemInstructions } from "./prompts.js";
import { routeQuery } from "./routing.js";
import { type PendingCall, runCalls } from "./run-calls.js";
import { TRANSCRIPT_VERSION, type Transcript } from "./transcript.js";
import type { LoopEvent, SessionOptions, StopReason, TurnResult } from "./types.js";

/** The transcript of the session whose code is running (sub-agent runs record themselves in it). */
export const currentTranscript = new AsyncLocalStorage<Transcript | undefined>();

const DEFAULT_MAX_STEPS = 25;
const DEFAULT_MAX_REPEATS = 3;

/** A planned call, or a native call that could not be read (answered with an error, never run). */
type RoundCall = PendingCall & { problem?: string };

/**
 * One conversation with a model, its tools fixed at creation.
 * @example
 * const session = new AgentSession({ gate, model, root });
 * const { answer } = await session.send("Fix the typo in README.md");
 */
export class AgentSession {
  readonly messages: ChatMessage[] = [];
  /** The tool names this session may call, sorted (refreshed at each turn from the gate's tools). */
  get toolNames(): readonly string[] {
    return this.names;
  }
  private names: readonly string[] = [];
  private schemas: unknown[] = [];
  /** The gate's generation the names and schemas were taken from. */
  private registry: unknown;
  private readonly profile: PlannerProfile;
  private nextId = 1;
  /** Keeps every request inside the context window. */
  private readonly keeper: ContextKeeper;
  /**
   * The context label (docs/injection.md): the join of every result that entered this conversation. Kept
   * apart from the messages, so compaction, which drops messages, keeps it; `clear` starts it again.
   */
  flow: FlowSession;
  /** Tokens of the newest exchange as the server counted them (prompt + reply), when that count can be true. */
  private tokensUsed: number | undefined;

  constructor(private options: SessionOptions) {
    this.keeper = new ContextKeeper(
      {
        model: () => this.options.model,
        emit: (event) => this.emit(event),
        record: (entry) => this.options.transcript?.write(entry),
        modeOf: (tool) => this.modeOf(tool),
      },
      options.contextWindow,
      options.maxReplyTokens,
    );
    this.flow = options.flow ?? new FlowSession();
    this.takeTools();
    // No default call unless configured: a chat greeting must not trigger a search.
    this.profile = options.profile ?? mergeProfiles(DEFAULT_PROFILE, { tools: {}, fallback: [] });
    const system = this.systemText();
    options.transcript?.write({
      type: "session",
      version: TRANSCRIPT_VERSION,
      id: options.transcript.id,
      ...(options.history?.length ? { resumes: options.transcript.id } : {}),
      provider: options.model.provider,
      model: options.model.model,
      ...(options.root ? { root: options.root } : {}),
      ...(options.agent ? { agent: options.agent, depth: options.depth ?? 0 } : {}),
      tools: [...this.toolNames],
    });
    this.push({ role: "system", content: system });
    // A resumed conversation: its messages are already in the transcript, so they are not written again.
    if (options.history) this.messages.push(...options.history);
  }

  /** Starts a new conversation: only the system instructions stay. The transcript records it. */
  clear(): void {
    this.messages.splice(1);
    this.flow = new FlowSession();
    this.tokensUsed = undefined;
    this.keeper.reset();
    this.options.transcript?.write({ type: "clear" });
  }

  /**
   * Talks to another model from now on (same wire format, so the tool schemas stay valid), in its own
   * context window when one is given.
   */
  useModel(model: ChatModel, contextWindow?: number): void {
    if (model.schemaProvider !== this.options.model.schemaProvider)
      throw new Error(`cannot switch from a ${this.options.model.provider} model to a ${model.provider} one`);
    this.options = { ...this.options, model, ...(contextWindow ? { contextWindow } : {}) };
    if (contextWindow) this.keeper.window = contextWindow;
    this.keeper.reset();
    this.options.transcript?.write({ type: "model", provider: model.provider, model: model.model });
  }

  /** Runs one turn: the task, then rounds of model replies and tool calls until the turn ends. */
  send(task: string, options: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    const { agent, model } = this.options;
    const span = { ...(agent ? { agent } : {}), provider: model.provider, model: model.model };
    return withTurnSpan(span, () =>
      currentTranscript.run(this.options.transcript, async () => {
        await this.refreshTools();
        return this.turn(task, options.signal);
      }),
    );
  }

  /** Names and schemas from the gate's current generation, within the session's scope. */
  private takeTools(): void {
    const { gate, scope } = this.options;
    this.registry = gate.registry;
    this.names = gate.registry.names().filter((n) => !scope || scope.tools.has(n));
    // A model that cannot call tools natively gets none sent (servers refuse them) and writes calls in text.
    this.schemas =
      this.names.length > 0 && this.options.nativeTools !== false
        ? gate.schemas(this.options.model.schemaProvider, scope ? { scope } : {})
        : [];
    this.keeper.setTools(this.schemas);
  }

  private systemText(): string {
    const o = this.options;
    return systemInstructions({
      tools: this.names,
      ...(o.root ? { root: o.root } : {}),
      ...(o.agent ? { agent: o.agent } : {}),
      ...(o.instructions ? { instructions: o.instructions } : {}),
    });
  }

  /**
   * Before a turn: a gate that owns a changing tool source (`.mcp.json` edited, a server's tools changed)
   * gives the turn its newest tools; the system instructions follow.
   */
  private async refreshTools(): Promise<void> {
    const { gate } = this.options;
    if (!gate.tools) return;
    await gate.tools();
    if (gate.registry === this.registry) return;
    const before = this.names.join("\n");
    this.takeTools();
    if (this.names.join("\n") === before) return;
    const first = this.messages[0];
    if (first?.role === "system") this.messages[0] = { ...first, content: this.systemText() };
  }

  private async turn(task: string, signal = new AbortController().signal): Promise<TurnResult> {
    const o = this.options;
    const maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
    const maxRepeats = o.maxRepeats ?? DEFAULT_MAX_REPEATS;
    const calls: TurnResult["calls"] = [];
    let steps = 0;
    let round = 0;
    let previous = "";
    let previousOutcome = "";
    let repeats = 0;
    const tokens = () => ({
      ...(this.tokensUsed !== undefined ? { used: this.tokensUsed } : {}),
      ...(this.keeper.window ? { window: this.keeper.window } : {}),
    });
    const finish = (stopReason: StopReason, answer: string, error?: ModelError): TurnResult => {
      o.transcript?.write({
        type: "turn_end",
        stopReason,
        steps,
        answer,
        ...(error ? { error: { kind: error.kind, message: error.message } } : {}),
      });
      return {
        answer,
        stopReason,
        steps,
        calls,
        tokens: tokens(),
        ...(error ? { error: error.message, errorKind: error.kind } : {}),
      };
    };
    this.push({ role: "user", content: task });
    // The user's own words: the hosts they name are destinations they chose. A parent model's words (a
    // sub-agent's task) carry what the parent had read.
    const taskLabel = this.options.taskLabel;
    if (taskLabel && isTainted(taskLabel)) this.flow.add(taskLabel);
    if (!taskLabel || taskLabel.integrity === "trusted") this.flow.noteTrusted(task);
    try {
      const routing = await this.route(task, signal);
      // on the first round, sub-questions × suggested tools run without asking the model.
      if (routing?.sub_questions?.length && routing.suggested_tools?.length) {
        const fanOut = plan({ query: task, routing, round: 0, scope: this.toolNames, profile: this.profile });
        if (fanOut.method === "routing") {
          this.recordPlan(fanOut);
          const pending = fanOut.calls.map((c) => ({ id: this.id(), name: c.name, args: c.args }));
          await this.runRound("", undefined, pending, calls, signal);
          round++;
        }
      }
      // An overflow is recovered from once per request: a second one ends the turn.
      let recovering = false;
      while (true) {
        if (signal.aborted) return finish("cancelled", "cancelled");
        if (steps >= maxSteps)
          return finish(
            "step_limit",
            `stopped after ${steps} model calls without a final answer (step limit)`,
          );
        await this.keeper.fit(this.messages, signal);
        const sent = [...this.messages];
        let reply: ChatReply | undefined;
        try {
          reply = await this.ask(sent, signal);
          steps++;
          // A server that cuts silently answered a shortened prompt: that reply answers something else.
          const { cut, believed } = this.keeper.afterReply(sent, reply.usage);
          if (cut) throw cut;
          if (reply.usage && believed)
            this.tokensUsed = reply.usage.promptTokens + reply.usage.completionTokens;
        } catch (error) {
          if (!(error instanceof ModelError) || error.kind !== "context_overflow" || signal.aborted)
            throw error;
          if (!reply) steps++;
          if (recovering) throw stillTooLong(error);
          recovering = true;
          await this.keeper.recover(error, this.messages, this.keeper.charsOf(sent), signal);
          continue;
        }
        recovering = false;
        const empty = emptyReply(reply);
        if (empty) {
          const error = new ModelError("incomplete", empty);
          error.partial = reply;
          throw error;
        }
        const pending = this.planRound(task, reply, routing, round, round > 0 || calls.length > 0);
        if (pending.length === 0) {
          this.pushAssistant(reply, []);
          return finish("answer", stripThinking(reply.text).trim());
        }
        const signature = pending
          .map((c) => `${c.name}:${canonicalJson(c.args ?? {})}`)
          .sort()
          .join("\n");
        // A repeat is the same calls after the same results: polling something that changes is progress.
        const before = calls.length;
        repeats = signature === previous ? repeats + 1 : 1;
        if (repeats >= maxRepeats) {
          this.pushAssistant(reply, []);
          const message = `stopped: the model made the same tool call(s) ${repeats} times in a row`;
          this.emit({ type: "notice", message });
          return finish("loop", message);
        }
        await this.runRound(reply.text, reply, pending, calls, signal);
        const outcome = calls
          .slice(before)
          .map((c) => `${c.name}:${canonicalJson(c.args ?? {})}=${c.result.llmContent}`)
          .sort()
          .join("\n");
        if (outcome !== previousOutcome) repeats = 1;
        previous = signature;
        previousOutcome = outcome;
        round++;
        if (signal.aborted) return finish("cancelled", "cancelled");
      }
    } catch (error) {
      if (error instanceof ModelError) {
        if (error.kind === "cancelled" || signal.aborted) return finish("cancelled", "cancelled");
        // What arrived stays in the conversation and the transcript, marked as not an answer.
        if (error.partial && (error.partial.text || error.partial.thinking))
          this.pushAssistant(error.partial, []);
        return finish(error.kind === "incomplete" ? "incomplete" : "model_error", error.message, error);
      }
      throw error;
    }
  }

  /** One request of the main conversation: the messages, the tools, the window, streamed to the UI. */
  private ask(messages: readonly ChatMessage[], signal: AbortSignal): Promise<ChatReply> {
    const window = this.keeper.window;
    const { model } = this.options;
    return withModelSpan(model, () =>
      model.chat({
        messages,
        tools: this.schemas,
        signal,
        ...(window ? { contextWindow: window } : {}),
        onText: (chunk) => this.emit({ type: "text", chunk }),
        onThinking: (chunk) => this.emit({ type: "thinking", chunk }),
        onRetry: ({ delayMs, reason, maxTokens }) =>
          this.emit({
            type: "notice",
            message:
              maxTokens !== undefined
                ? `${reason} — asking again with max_tokens ${maxTokens}`
                : `${reason} — retrying in ${(delayMs / 1000).toFixed(1)} s`,
          }),
      }),
    );
  }

  private async route(task: string, signal: AbortSignal): Promise<RoutingPlan | undefined> {
    if (!this.options.routing || this.toolNames.length === 0) return undefined;
    const tools = this.toolNames.map((name) => ({
      name,
      description: this.options.gate.registry.get(name)?.description ?? "",
    }));
    const window = this.keeper.window;
    const routing = await routeQuery(this.options.model, task, tools, {
      signal,
      ...(window ? { contextWindow: window } : {}),
      // Inside the budget like every request: a routing request over it is not sent (no plan).
      fits: (messages) => this.keeper.fitsAlone(messages),
    });
    this.emit({ type: "routing", plan: routing ?? null });
    this.options.transcript?.write({ type: "routing", plan: routing ?? null });
    return routing;
  }

  /** The cascade for one reply. Text extraction and the default call only before any tool result. */
  private planRound(
    task: string,
    reply: ChatReply,
    routing: RoutingPlan | undefined,
    round: number,
    hasContext: boolean,
  ): RoundCall[] {
    if (this.toolNames.length === 0 && reply.toolCalls.length === 0) return [];
    const wire = reply.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
    const result = plan({
      query: task,
      reply: { text: reply.text, toolCalls: wire },
      ...(routing ? { routing } : {}),
      round,
      hasContext,
      // Answers stay answers: with native tool calling, or after tool results, text is mined only for the
      // models' call markup or a reply that is nothing but a call.
      strictText: this.options.nativeTools !== false || hasContext,
      scope: this.toolNames,
      profile: this.profile,
      ...(this.options.defaultTool ? { defaultCall: { name: this.options.defaultTool } } : {}),
    });
    this.recordPlan(result);
    // Native calls the planner could not read are still calls: each is answered with its problem, so
    // the model can retry, instead of the turn ending on an empty "answer".
    if (result.method === "native" || reply.toolCalls.length > 0) {
      // Each native call keeps its id; one the planner cannot read is answered with the reason.
      return reply.toolCalls.map((c, i) => {
        const one = parseNativeCalls([wire[i]]);
        const call = one.calls[0];
        if (call) return { id: c.id, name: call.name, args: call.args };
        return {
          id: c.id,
          name: c.name,
          args: c.arguments,
          problem: one.problems[0]?.reason ?? "unreadable call",
        };
      });
    }
    // After tool results, prose is the answer: naming a tool in it is not asking for it again.
    if (hasContext && (result.method === "text" || result.method === "fallback")) return [];
    return result.calls.map((c) => ({ id: this.id(), name: c.name, args: c.args }));
  }

  private async runRound(
    text: string,
    reply: ChatReply | undefined,
    pending: RoundCall[],
    calls: TurnResult["calls"],
    signal: AbortSignal,
  ): Promise<void> {
    const toolCalls: ModelToolCall[] = pending.map((c) => ({ id: c.id, name: c.name, arguments: c.args }));
    if (reply) this.pushAssistant(reply, toolCalls);
    else this.push({ role: "assistant", content: text, toolCalls });
    const runnable = pending.filter((c) => !c.problem);
    const results = await runCalls(runnable, {
      gate: this.options.gate,
      signal,
      emit: (e) => this.emit(e),
      ...(this.options.scope ? { scope: this.options.scope } : {}),
      ...(this.options.broker ? { broker: this.options.broker } : {}),
      ...(this.options.transcript ? { transcript: this.options.transcript } : {}),
      flow: this.flow,
      // The quarantined reader reads with this session's current model, given no tools.
      reader: structuredReader(() => this.options.model),
      // A result by its call id, as it entered the context and only while it is still there (compaction
      // drops messages: a result no longer in the context cannot be read by reference); the latest with
      // that id, since a provider that numbers calls per reply repeats ids across rounds.
      recall: (id) => this.messages.findLast((m) => m.role === "tool" && m.toolCallId === id)?.content,
    });
    const byId = new Map(runnable.map((c, i) => [c.id, results[i]!]));
    // The round's results together get their share of the window; one over its part is cut, saying how to page.
    const contents = await this.keeper.shapeRound(
      this.messages,
      pending.map((c) => {
        const result = byId.get(c.id);
        return {
          id: c.id,
          name: c.name,
          args: c.args,
          content: result ? result.llmContent : `Error (invalid_params): ${c.problem}`,
          mode: this.modeOf(c.name),
        };
      }),
    );
    pending.forEach((c, k) => {
      const result = byId.get(c.id);
      if (result) calls.push({ name: c.name, args: c.args, result });
      this.push({ role: "tool", content: contents[k]!, toolCallId: c.id, name: c.name });
    });
  }

  /** How a tool's results are cut: its start, or start and end (commands). */
  private modeOf(tool: string): "head" | "head-tail" {
    return this.options.gate.registry.get(tool)?.outputMode ?? "head";
  }

  /** Thinking never goes back to the model: inline `<think>` blocks move to `thinking` (transcript only). */
  private pushAssistant(reply: ChatReply, toolCalls: ModelToolCall[]): void {
    const { visible, thinking } = splitThinking(reply.text);
    const message: ChatMessage = { role: "assistant", content: visible };
    if (toolCalls.length > 0) message.toolCalls = toolCalls;
    const thought = [reply.thinking, thinking].filter(Boolean).join("\n");
    if (thought) message.thinking = thought;
    this.push(message);
  }

  /**
   * Compacts the history when the next request would not fit the window, or now with `force` (`/compact`:
   * every old tool result shortened, the conversation so far replaced by the model's own summary). Says
   * what it did in a notice and in the transcript.
   */
  async compact(options: { signal?: AbortSignal; force?: boolean } = {}): Promise<string | undefined> {
    // Between turns nothing is in progress: everything after the system prompt may be summarised.
    return currentTranscript.run(this.options.transcript, () =>
      this.keeper.fit(this.messages, options.signal ?? new AbortController().signal, {
        force: options.force === true,
        idle: true,
      }),
    );
  }

  private recordPlan(result: PlanResult): void {
    const entry = { method: result.method, reason: result.reason, skipped: result.skipped };
    this.emit({ type: "plan", ...entry });
    this.options.transcript?.write({ type: "plan", ...entry });
  }

  private push(message: ChatMessage): void {
    this.messages.push(message);
    this.options.transcript?.write({ type: "message", message });
  }

  private emit(event: LoopEvent): void {
    const o = this.options;
    if (!o.onEvent) return;
    o.onEvent(o.agent && (o.depth ?? 0) > 0 ? { ...event, agent: o.agent, depth: o.depth ?? 0 } : event);
  }

  private id(): string {
    return `tg_${this.nextId++}`;
  }
}

/** The error that ends a turn when the retry after an overflow overflowed too. */
function stillTooLong(error: ModelError): ModelError {
  const final = new ModelError(
    "context_overflow",
    `${error.message} — and again after compacting: set [llm] context_window to what the model really holds, use fewer tools, or ask for less at a time`,
    error.status,
  );
  if (error.overflow) final.overflow = error.overflow;
  return final;
}

/** Why a reply with no call and no visible text is not an answer; undefined when it is one. */
function emptyReply(reply: ChatReply): string | undefined {
  if (reply.toolCalls.length > 0 || stripThinking(reply.text).trim() !== "") return undefined;
  const thought = (reply.thinking ?? "").trim() !== "" || /<think>/i.test(reply.text);
  return thought
    ? "the model only thought and gave no answer (an empty reply after its thinking)"
    : "the model returned an empty reply";
}
