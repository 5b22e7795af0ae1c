/**
 * @module loop/approvals
 * How a session answers `ask`: a broker whose `confirm` is given to each of the session's calls (so it
 * knows the call, its agent and its signal from the request itself), consults the session's "always"
 * allow-list (tool + exact argument digest, never a whole program or folder) before asking, and asks a
 * person one question at a time.
 */
import type { MessageBus } from "../bus/index.js";
import type { ConfirmationRequest, ConfirmationResponse } from "../core/index.js";
import { argsDigest } from "../core/index.js";

/** A person's answer. `always` approves this exact call (same tool, same arguments) for the session. */
export type Answer = "yes" | "no" | "always";

/**
 * Asks a person about one call's request; resolves to their answer. The request's signal aborts when the
 * call is cancelled (withdraw the question then). Rejects → no.
 */
export type Asker = (request: ConfirmationRequest) => Promise<Answer>;
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
 * Answers the confirmation requests of a session's calls (and its sub-agents', which share the broker).
 * @example
 * const broker = new ConfirmationBroker(async ({ details }) => ((await ask(details)) ? "yes" : "no"));
 * await gate.execute(call, { signal, confirm: broker.confirm });
 */
export class ConfirmationBroker {
  readonly approvals = new SessionApprovals();
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param refusal the reason a "no" gives (default "the user said no"); an asker that answers for nobody
   * (`toolgate run` without `--yes`) says so instead.
   */
  constructor(
    private readonly asker: Asker,
    private readonly refusal = "the user said no",
  ) {}

  /** Answers one call's request: a call's `confirm` (bound, so it can be passed as is). */
  readonly confirm = (request: ConfirmationRequest): Promise<ConfirmationResponse> => {
    if (this.approved(request))
      return Promise.resolve({ approved: true, reason: "approved earlier for this session", always: true });
    // One question at a time: concurrent calls wait for the person.
    const turn = this.queue.then(() => this.ask(request));
    this.queue = turn.catch(() => undefined);
    return turn;
  };

  /** Also answers the requests `bus` publishes (calls made without a `confirm`); returns a function that stops. */
  install(bus: MessageBus): () => void {
    return bus.onConfirmation((request) => this.confirm(request));
  }

  private approved({ call }: ConfirmationRequest): boolean {
    return this.approvals.has(call.name, call.args);
  }

  private async ask(request: ConfirmationRequest): Promise<ConfirmationResponse> {
    // An earlier question in the queue may have approved this exact call.
    if (this.approved(request))
      return { approved: true, reason: "approved earlier for this session", always: true };
    // Cancelled while it waited its turn: the call is gone, so nobody is asked.
    if (request.signal.aborted) return { approved: false, reason: "the call was cancelled" };
    let answer: Answer;
    try {
      answer = await this.asker(request);
    } catch {
      answer = "no";
    }
    if (answer === "always") {
      this.approvals.add(request.call.name, request.call.args);
      return { approved: true, always: true };
    }
    if (answer === "yes") return { approved: true };
    return { approved: false, reason: this.refusal };
  }
}

/** An asker for scripts: yes to everything (`--yes`) or no to everything. Never "always". */
export function fixedAsker(answer: "yes" | "no"): Asker {
  return async () => answer;
}
