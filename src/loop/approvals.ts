/**
 * @module loop/approvals
 * How a session answers `ask`: a broker on the gate's message bus that knows which call each request
 * belongs to, consults the session's "always" allow-list (tool + exact argument digest, never a whole
 * program or folder) before asking, and asks a person one question at a time.
 */
import type { ConfirmationRequest, MessageBus } from "../bus/index.js";
import type { ConfirmationDetails, ConfirmationResponse } from "../core/index.js";
import { argsDigest } from "../core/index.js";

/** A person's answer. `always` approves this exact call (same tool, same arguments) for the session. */
export type Answer = "yes" | "no" | "always";

/** What the asker is shown. */
export interface AskRequest {
  details: ConfirmationDetails;
  /** The call as the model made it (absent when the request came from outside the loop). */
  call?: { name: string; args: unknown };
}

/** Asks a person; resolves to their answer. Rejects or aborts → no. */
export type Asker = (request: AskRequest, signal: AbortSignal) => Promise<Answer>;

/** The session's allow-list: exact calls the person approved "always". */
export class SessionApprovals {
  private readonly keys = new Set<string>();

  /** The key of a call: its tool and the digest of its exact arguments. */
  static key(name: string, args: unknown): string {
    return `${name}\u0000${argsDigest(args ?? {})}`;
  }

  has(name: string, args: unknown): boolean {
    return this.keys.has(SessionApprovals.key(name, args));
  }

  add(name: string, args: unknown): void {
    this.keys.add(SessionApprovals.key(name, args));
  }

  get size(): number {
    return this.keys.size;
  }
}

/**
 * Answers the bus's confirmation requests for a session (and its sub-agents, which share the bus).
 * @example
 * const broker = new ConfirmationBroker(gate.bus, async ({ details }) => (await ask(details)) ? "yes" : "no");
 * const stop = broker.install();
 */
export class ConfirmationBroker {
  readonly approvals = new SessionApprovals();
  private readonly calls = new WeakMap<ConfirmationDetails, { name: string; args: unknown }>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Passed to the asker: a UI sets the running turn's signal so Ctrl-C also withdraws the question. */
  signal: AbortSignal = new AbortController().signal;

  /**
   * @param refusal the reason a "no" gives (default "the user said no"); an asker that answers for nobody
   * (`toolgate run` without `--yes`) says so instead.
   */
  constructor(
    private readonly bus: MessageBus,
    private readonly asker: Asker,
    private readonly refusal = "the user said no",
  ) {}

  /** Links a request's details to the call that caused it (the pipeline's `onConfirmation` hook). */
  tag(details: ConfirmationDetails, call: { name: string; args: unknown }): void {
    this.calls.set(details, call);
  }

  /** Starts answering; returns a function that stops. */
  install(): () => void {
    return this.bus.onConfirmation((request) => this.answer(request));
  }

  private async answer(request: ConfirmationRequest): Promise<ConfirmationResponse> {
    const call = this.calls.get(request.details);
    if (call && this.approvals.has(call.name, call.args))
      return { approved: true, reason: "approved earlier for this session", always: true };
    // One question at a time: concurrent calls wait for the person.
    const turn = this.queue.then(() => this.ask(request, call));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async ask(
    request: ConfirmationRequest,
    call: { name: string; args: unknown } | undefined,
  ): Promise<ConfirmationResponse> {
    // An earlier question in the queue may have approved this exact call.
    if (call && this.approvals.has(call.name, call.args))
      return { approved: true, reason: "approved earlier for this session", always: true };
    let answer: Answer;
    try {
      answer = await this.asker(
        call ? { details: request.details, call } : { details: request.details },
        this.signal,
      );
    } catch {
      answer = "no";
    }
    if (answer === "always" && call) {
      this.approvals.add(call.name, call.args);
      return { approved: true, always: true };
    }
    if (answer === "yes" || answer === "always") return { approved: true };
    return { approved: false, reason: this.refusal };
  }
}

/** An asker for scripts: yes to everything (`--yes`) or no to everything. Never "always". */
export function fixedAsker(answer: "yes" | "no"): Asker {
  return async () => answer;
}
