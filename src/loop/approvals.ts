/**
 * @module loop/approvals
 * How a session answers `ask`: a broker whose `confirm` is given to each of the session's calls (so it
 * knows the call, its agent and its signal from the request itself), consults the session's "always"
 * allow-list (tool + exact argument digest, never a whole program or folder) before asking, and asks a
 * person one question at a time. The person is asked through a `Confirm`, the one shape a confirmation has
 * everywhere in toolgate; a response with `always` adds the exact call to the allow-list.
 */
import type { MessageBus } from "../bus/index.js";
import type { Confirm, ConfirmationRequest, ConfirmationResponse } from "../core/index.js";
import { argsDigest } from "../core/index.js";

/** A person's answer as typed. `always` approves this exact call (same tool, same arguments) for the session. */
export type Answer = "yes" | "no" | "always";

/** The response a typed answer gives. */
export function answerResponse(answer: Answer): ConfirmationResponse {
  if (answer === "always") return { approved: true, always: true };
  return { approved: answer === "yes" };
}
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
 * const broker = new ConfirmationBroker(async ({ details }) => ({ approved: await ask(details) }));
 * await gate.execute(call, { signal, confirm: broker.confirm });
 */
export class ConfirmationBroker {
  readonly approvals = new SessionApprovals();
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param person asks the person (the request's signal aborts when the call is cancelled: withdraw the
   * question then); a rejection is a no
   * @param refusal the reason a "no" without one gives (default "the user said no"); a confirm that answers
   * for nobody (`toolgate run` without `--yes`) says so instead.
   */
  constructor(
    private readonly person: Confirm,
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
    let response: ConfirmationResponse;
    try {
      response = await this.person(request);
    } catch {
      response = { approved: false };
    }
    if (!response.approved) return { ...response, reason: response.reason ?? this.refusal };
    if (response.always) this.approvals.add(request.call.name, request.call.args);
    return response;
  }
}

/** A confirm for scripts: yes to everything (`--yes`) or no to everything. Never "always". */
export function fixedConfirm(answer: "yes" | "no"): Confirm {
  return async () => ({ approved: answer === "yes" });
}
