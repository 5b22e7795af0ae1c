/**
 * @module loop/keeper
 * Keeps one session's prompts inside its context window. Before every request the prompt is measured —
 * exactly where the model can count (the embedded model), else estimated from its characters and tool
 * definitions by the token gauge — and must fit the window minus the reply's reserve; over it, the
 * conversation is compacted down to a target below the budget (old results shortened, older messages
 * summarised, the newest results cut further), and a request that still would not fit is not sent. A
 * round's tool results are shaped to their share as they come back. After a reply, the server's count
 * teaches the gauge (within plausible bounds) and, for a server that cuts silently, shows whether it cut.
 * After an overflow — refused by the server, or cut — `recover` learns what it can, halves the results'
 * share and compacts, for one retry.
 */
import {
  type ChatMessage,
  type ChatModel,
  contextOverflowError,
  ModelError,
  type TokenUsage,
} from "../llm/index.js";
import {
  type Budget,
  budgetFor,
  type Counted,
  charsOf,
  cutSignal,
  type Room,
  roomFor,
  TokenGauge,
} from "./budget.js";
import {
  newestRound,
  shortenToolResults,
  summarise,
  summaryRange,
  summaryRequest,
  taskIndex,
} from "./context.js";
import { type ResultToShape, shapeResults } from "./shape.js";
import type { TranscriptEntry } from "./transcript.js";
import type { LoopEvent } from "./types.js";

/** What the keeper needs from its session. */
export interface KeeperHost {
  model(): ChatModel;
  emit(event: LoopEvent): void;
  record(entry: TranscriptEntry): void;
  /** The output mode of a tool (how its results are cut). */
  modeOf(tool: string): ResultToShape["mode"];
}

/** The smallest share of the room results keep after overflows. */
const MIN_SHARE = 1 / 8;
/** Rounds of cutting the newest results before the keeper gives up. */
const CUT_ATTEMPTS = 4;

export class ContextKeeper {
  private readonly gauge = new TokenGauge();
  private tools: readonly unknown[] = [];
  private toolsChars = 0;
  /** Scales the results' share: 1, halved after each overflow. */
  private share = 1;
  /** The last request a plausible count came back for: what it held, and the count. */
  private previous: { messages: readonly ChatMessage[]; counted: Counted; toolsChars: number } | undefined;
  /** The newest round's results as the pipeline returned them, by call id: a later cut starts from these. */
  private round = new Map<string, ResultToShape>();

  constructor(
    private readonly host: KeeperHost,
    public window: number | undefined,
    private readonly maxReplyTokens?: number,
  ) {}

  /** The tools payload sent with every request (it counts towards the prompt). */
  setTools(tools: readonly unknown[]): void {
    this.tools = tools;
    this.toolsChars = tools.length > 0 ? JSON.stringify(tools).length : 0;
  }

  /** A new conversation: nothing of the last one is compared with. */
  reset(): void {
    this.previous = undefined;
    this.round.clear();
  }

  budget(): Budget | undefined {
    return this.window ? budgetFor(this.window, this.maxReplyTokens) : undefined;
  }

  /** The prompt `messages` make with the tools: exact where the model counts, else the gauge's estimate. */
  async measure(messages: readonly ChatMessage[]): Promise<number> {
    const model = this.host.model();
    if (model.countTokens) return model.countTokens({ messages, tools: this.tools });
    return this.gauge.tokensFor(this.charsOf(messages));
  }

  /** Characters of a request: its messages and the tools payload. */
  charsOf(messages: readonly ChatMessage[]): number {
    return charsOf(messages) + this.toolsChars;
  }

  /** The room the fixed part (system prompt, tools, the current task) leaves. */
  private async room(messages: readonly ChatMessage[], budget: Budget): Promise<Room> {
    const task = taskIndex(messages);
    const fixed = messages.filter((m, i) => (i === 0 && m.role === "system") || i === task);
    return roomFor(budget, await this.measure(fixed), this.share);
  }

  /** A round's results, cut to their share of the room (whole without a window). Remembers the originals. */
  async shapeRound(
    messages: readonly ChatMessage[],
    results: readonly (ResultToShape & { id: string })[],
  ): Promise<string[]> {
    this.round = new Map(results.map((r) => [r.id, r]));
    const budget = this.budget();
    if (!budget) return results.map((r) => r.content);
    const room = await this.room(messages, budget);
    return shapeResults(results, this.gauge.charsFor(room.results));
  }

  /**
   * Before a request: when the prompt is over the budget (or `force`, or over the target with `toTarget`),
   * compacts it in place and says so; throws a `context_overflow` ModelError when it still cannot fit.
   * Returns the notice, or undefined when nothing had to be done.
   */
  async fit(
    messages: ChatMessage[],
    signal: AbortSignal,
    options: { force?: boolean; idle?: boolean; toTarget?: boolean } = {},
  ): Promise<string | undefined> {
    const budget = this.budget();
    if (!budget && !options.force) return undefined;
    const limit = budget?.prompt ?? Number.POSITIVE_INFINITY;
    let size = await this.measure(messages);
    // The common case: the prompt fits, and nothing else is measured.
    if (!options.force && !options.toTarget && size <= limit) return undefined;
    const room = budget ? await this.room(messages, budget) : undefined;
    // The target is below the budget (when the fixed part alone is over it, the budget itself).
    const target = options.force || !room ? 0 : Math.min(room.target, limit);
    if (options.toTarget && size <= target) return undefined;
    const before = size;
    const excess = options.force ? Number.POSITIVE_INFINITY : this.gauge.charsFor(size - target);
    const shortened = shortenToolResults(messages, excess, (tool) => this.host.modeOf(tool));
    if (shortened) size = await this.measure(messages);
    let summarised = 0;
    const range = options.force || size > target ? summaryRange(messages, options.idle) : undefined;
    if (range) {
      summarised = await this.summarise(messages, range, budget, signal);
      size = await this.measure(messages);
    }
    let cut = 0;
    if (size > limit) ({ cut, size } = await this.cutNewest(messages, limit, size));
    const parts = [
      ...(shortened ? [`shortened ${shortened} old tool result(s)`] : []),
      ...(summarised ? [`summarised ${summarised} older message(s)`] : []),
      ...(cut ? [`cut the newest ${cut} tool result(s) further`] : []),
    ];
    const message = `context: ${parts.join(", ") || "nothing to compact"} — about ${before} → ${size} tokens${this.window ? ` of ${this.window}` : ""}`;
    this.host.emit({ type: "notice", message });
    this.host.record({
      type: "compaction",
      shortened,
      summarised,
      ...(cut ? { cut } : {}),
      before,
      after: size,
    });
    if (size > limit) throw this.doesNotFit(size, budget!);
    return message;
  }

  /** Replaces the older messages of `range` with the model's summary; returns how many it replaced. */
  private async summarise(
    messages: ChatMessage[],
    range: { from: number; to: number; task?: number },
    budget: Budget | undefined,
    signal: AbortSignal,
  ): Promise<number> {
    const older = messages.slice(range.from, range.to).filter((_, i) => range.from + i !== range.task);
    const task = range.task !== undefined ? messages[range.task] : undefined;
    let request = summaryRequest(older, task, Number.POSITIVE_INFINITY);
    if (budget) {
      // The summary request must fit as well: the history is cut (start and end kept) until it does.
      const shell = await this.measureBare(summaryRequest([], task, 0));
      let chars = this.gauge.charsFor(budget.prompt - shell);
      request = summaryRequest(older, task, chars);
      for (let i = 0; i < CUT_ATTEMPTS && (await this.measureBare(request)) > budget.prompt; i++) {
        chars = Math.floor(chars * 0.7);
        request = summaryRequest(older, task, chars);
      }
    }
    let summary: ChatMessage;
    try {
      summary = await summarise(this.host.model(), request, signal, this.window);
    } catch (error) {
      // The summary request overflowed too (its history tokenizes denser than learned): once more, half as long.
      if (!(error instanceof ModelError) || error.kind !== "context_overflow" || signal.aborted) throw error;
      const sent = charsOf(request);
      this.gauge.atLeast(sent, error.overflow?.promptTokens ?? budget?.window ?? this.gauge.tokensFor(sent));
      const half = Math.floor(charsOf(request.slice(1)) / 2);
      summary = await summarise(this.host.model(), summaryRequest(older, task, half), signal, this.window);
    }
    messages.splice(range.from, range.to - range.from, summary, ...(task ? [task] : []));
    return older.length;
  }

  /** Whether a request of `messages` alone (no tools payload: a routing request) is inside the budget. */
  async fitsAlone(messages: readonly ChatMessage[]): Promise<boolean> {
    const budget = this.budget();
    return !budget || (await this.measureBare(messages)) <= budget.prompt;
  }

  /** A request without the tools payload (the summary request sends none). */
  private async measureBare(messages: readonly ChatMessage[]): Promise<number> {
    const model = this.host.model();
    if (model.countTokens) return model.countTokens({ messages });
    return this.gauge.tokensFor(charsOf(messages));
  }

  /** Cuts the newest round's results (from their originals) until the prompt fits `limit`. */
  private async cutNewest(
    messages: ChatMessage[],
    limit: number,
    size: number,
  ): Promise<{ cut: number; size: number }> {
    const start = newestRound(messages);
    const at: number[] = [];
    for (let i = start + 1; i < messages.length; i++) if (messages[i]!.role === "tool") at.push(i);
    if (at.length === 0) return { cut: 0, size };
    const results = at.map((i) => {
      const m = messages[i] as Extract<ChatMessage, { role: "tool" }>;
      return {
        index: i,
        shape: this.round.get(m.toolCallId) ?? { name: m.name, args: {}, content: m.content },
      };
    });
    let allowed = at.reduce((n, i) => n + messages[i]!.content.length, 0);
    for (let attempt = 0; attempt < CUT_ATTEMPTS && size > limit && allowed > 0; attempt++) {
      allowed = Math.max(0, allowed - this.gauge.charsFor(size - limit) - 64);
      const shaped = shapeResults(
        results.map((r) => r.shape),
        allowed,
      );
      results.forEach((r, k) => {
        messages[r.index] = { ...(messages[r.index] as ChatMessage), content: shaped[k]! } as ChatMessage;
      });
      size = await this.measure(messages);
    }
    return { cut: at.length, size };
  }

  private doesNotFit(size: number, budget: Budget): ModelError {
    return contextOverflowError(
      { promptTokens: size, window: budget.window },
      `even compacted, the prompt is about ${size} tokens, over the budget of ${budget.prompt} (the window of ${budget.window} less ${budget.reserve} kept for the reply): the system prompt, the ${this.tools.length} tool definition(s) and the task take too much — use fewer tools (an agent with a shorter tools list), a shorter task, or a larger [llm] context_window`,
    );
  }

  /**
   * After a reply: a count from a server that cuts silently which shows it cut comes back as `cut`, a
   * `context_overflow` error (the reply answered something else); a plausible count is learned, and
   * `believed` says whether it was (a count that cannot be true is not shown as the tokens used either).
   */
  afterReply(
    sent: readonly ChatMessage[],
    usage: TokenUsage | undefined,
  ): { cut?: ModelError; believed: boolean } {
    if (!usage) return { believed: false };
    const chars = this.charsOf(sent);
    const model = this.host.model();
    if (model.cutsLongPrompts && this.window) {
      const previous =
        this.previous &&
        this.previous.toolsChars === this.toolsChars &&
        isPrefix(this.previous.messages, sent)
          ? this.previous.counted
          : undefined;
      const why = cutSignal(usage.promptTokens, chars, this.window, previous);
      if (why) {
        const said = `the server shortened the prompt without saying so: ${why}`;
        return { cut: contextOverflowError({ window: this.window }, said), believed: false };
      }
    }
    const exact = model.countTokens !== undefined;
    const window = this.window ? { window: this.window } : {};
    const believed = this.gauge.learn(chars, usage.promptTokens, { exact, ...window });
    if (believed)
      this.previous = {
        messages: [...sent],
        counted: { chars, tokens: usage.promptTokens },
        toolsChars: this.toolsChars,
      };
    return { believed };
  }

  /**
   * After an overflow of a request of `sentChars` characters: learns the window and the rate it shows,
   * halves the results' share, cuts the newest results to it and compacts to the target.
   */
  async recover(
    error: ModelError,
    messages: ChatMessage[],
    sentChars: number,
    signal: AbortSignal,
  ): Promise<void> {
    const facts = error.overflow ?? {};
    if (facts.window && (!this.window || facts.window < this.window)) this.window = facts.window;
    // Without any window, the refused prompt's size is an upper bound.
    if (!this.window) this.window = Math.floor(this.gauge.tokensFor(sentChars) * 0.75);
    if (facts.promptTokens && !this.gauge.learn(sentChars, facts.promptTokens))
      this.gauge.atLeast(sentChars, facts.promptTokens);
    else if (!facts.promptTokens) this.gauge.atLeast(sentChars, this.window + 1);
    this.share = Math.max(MIN_SHARE, this.share / 2);
    this.previous = undefined;
    this.host.emit({
      type: "notice",
      message: `context: ${error.message} — compacting, and trying once more with a smaller share for tool results`,
    });
    const budget = this.budget()!;
    const start = newestRound(messages);
    const newest = messages.slice(start + 1).filter((m) => m.role === "tool") as Extract<
      ChatMessage,
      { role: "tool" }
    >[];
    if (newest.length > 0) {
      const room = await this.room(messages, budget);
      const originals = newest.map(
        (m) => this.round.get(m.toolCallId) ?? { name: m.name, args: {}, content: m.content },
      );
      const shaped = shapeResults(originals, this.gauge.charsFor(room.results));
      newest.forEach((m, k) => {
        const i = messages.indexOf(m);
        messages[i] = { ...m, content: shaped[k]! };
      });
    }
    await this.fit(messages, signal, { toTarget: true });
  }
}

/** True when `before` is the start of `after`, message for message (the conversation only grew). */
function isPrefix(before: readonly ChatMessage[], after: readonly ChatMessage[]): boolean {
  if (before.length > after.length) return false;
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) return false;
  return true;
}
