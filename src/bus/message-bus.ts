/**
 * @module bus/message-bus
 * The message bus: the gate's confirmation listeners, as an adapter over the approval store. As the
 * pipeline's confirmer it hands each ask of a call that brings no `confirm` to its listeners — the call's
 * request plus the ask's id as correlation id — and returns the first answer (given at once, or later with
 * `respond(id, …)`), which the confirm step records in the store. Asks live only in the store: the bus keeps
 * no pending state of its own beyond who is waiting for a listener's answer.
 */
import { randomUUID } from "node:crypto";
import {
  type ApprovalRecord,
  type ApprovalStore,
  askApproval,
  type ConfirmationRequest,
  type ConfirmationResponse,
  type Confirmer,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  InProcessApprovalStore,
} from "../core/index.js";

/** A call's confirmation request as listeners see it: the request plus its ask's id and times. */
export interface PublishedConfirmation extends ConfirmationRequest {
  /** The ask's id in the approval store: answer with `bus.respond(id, response)` (not the call's id, `callId`). */
  id: string;
  /** When the ask was published (ms since epoch). */
  createdAt: number;
  /** When it expires as a deny (ms since epoch). */
  expiresAt: number;
}

/**
 * A listener. Return (or resolve to) a response to answer directly; return nothing to answer later with
 * `respond(id, ...)` (a UI that shows a dialog).
 */
export type ConfirmationListener = (
  request: PublishedConfirmation,
) => ConfirmationResponse | undefined | Promise<ConfirmationResponse | undefined>;

/** Thrown by `request()` when nobody answered in time. */
export class ConfirmationTimeoutError extends Error {
  override readonly name = "ConfirmationTimeoutError";
  constructor(
    readonly id: string,
    readonly timeoutMs: number,
  ) {
    super(`confirmation ${id} timed out after ${timeoutMs} ms`);
  }
}

/** Thrown by `request()` when there is no listener to ask. */
export class NoListenerError extends Error {
  override readonly name = "NoListenerError";
  constructor(readonly id: string) {
    super("no one is listening for confirmations");
  }
}

export interface MessageBusOptions {
  /** How long a `request()` waits for an answer. Default 5 minutes. */
  timeoutMs?: number;
  /** Where `request()` keeps its asks. Default: an in-process store of its own. */
  approvals?: ApprovalStore;
}

const NO_LISTENER = "no one was available to approve it";

/**
 * @example
 * const bus = new MessageBus();
 * bus.onConfirmation(async (req) => ({ approved: await askUser(req.details, req.signal) }));
 */
export class MessageBus implements Confirmer {
  /** The store the bus's own `request()` publishes to (the gate passes its approval store). */
  readonly approvals: ApprovalStore;
  private readonly listeners = new Set<ConfirmationListener>();
  private readonly waiting = new Map<string, (response: ConfirmationResponse) => void>();
  private readonly timeoutMs: number;

  constructor(options: MessageBusOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
    this.approvals = options.approvals ?? new InProcessApprovalStore();
  }

  /** Adds a listener; returns a function that removes it. */
  onConfirmation(listener: ConfirmationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Ids of asks handed to the listeners and not answered yet. */
  pending(): string[] {
    return [...this.waiting.keys()];
  }

  /**
   * Answers ask `id` for the listeners. Returns false when no such ask is waiting here (answered, settled,
   * unknown). The answer is recorded in the store, where the first answer wins.
   */
  respond(id: string, response: ConfirmationResponse): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting) return false;
    waiting(response);
    return true;
  }

  /**
   * As the pipeline's confirmer (`ask` given: the record the confirm step published), hands the request to
   * every listener and resolves with the first answer; with no listener, a refusal — unless the bus's store
   * is shared, when the ask is left to whoever answers it there (or its expiry). Called on its own
   * (no `ask`), it puts the request through the store as `request()` does, and turns a timeout or no
   * listener into a refusal.
   */
  async confirm(request: ConfirmationRequest, ask?: ApprovalRecord): Promise<ConfirmationResponse> {
    if (ask) {
      // No one here to ask: refuse at once, unless the store is shared and someone elsewhere may answer.
      if (this.listeners.size === 0 && !this.approvals.shared)
        return { approved: false, reason: NO_LISTENER };
      return this.deliver(request, ask);
    }
    try {
      return await this.request(request);
    } catch (error) {
      if (error instanceof ConfirmationTimeoutError) {
        return { approved: false, reason: `no answer within ${error.timeoutMs} ms` };
      }
      if (error instanceof NoListenerError) return { approved: false, reason: NO_LISTENER };
      throw error;
    }
  }

  /**
   * Publishes a call's request in the store, hands it to the listeners and waits for the ask to be settled
   * (the same path as the pipeline's). Rejects with ConfirmationTimeoutError, NoListenerError, or the abort
   * reason of the request's signal.
   */
  async request(
    call: ConfirmationRequest,
    options: { timeoutMs?: number } = {},
  ): Promise<ConfirmationResponse> {
    call.signal.throwIfAborted();
    if (this.listeners.size === 0 && !this.approvals.shared) throw new NoListenerError(randomUUID());
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const confirm = (request: ConfirmationRequest, ask?: ApprovalRecord) => this.confirm(request, ask);
    const record = await askApproval(
      { approvals: this.approvals, confirm, by: "confirmer", timeoutMs },
      call,
    );
    const { settled } = record;
    if (record.state === "expired") throw new ConfirmationTimeoutError(record.id, timeoutMs);
    if (record.state === "cancelled") throw abortError(call.signal);
    return {
      approved: record.state === "approved",
      ...(settled?.reason === undefined ? {} : { reason: settled.reason }),
      ...(settled?.scope === "always" ? { always: true } : {}),
    };
  }

  /**
   * Hands one ask to every listener (there may be none, for a shared store); resolves with the first answer,
   * or a refusal once the ask is gone (which the confirm step does not record).
   */
  private deliver(request: ConfirmationRequest, ask: ApprovalRecord): Promise<ConfirmationResponse> {
    const { id } = ask;
    const { signal } = request;
    const published: PublishedConfirmation = {
      ...request,
      id,
      createdAt: ask.createdAt,
      expiresAt: ask.expiresAt,
    };
    return new Promise<ConfirmationResponse>((resolve) => {
      const done = (response: ConfirmationResponse) => {
        this.waiting.delete(id);
        signal.removeEventListener("abort", gone);
        resolve(response);
      };
      // The call was cancelled or the ask settled elsewhere: the answer no longer matters.
      const gone = () => done({ approved: false, reason: "the ask is no longer pending" });
      if (signal.aborted) return gone();
      signal.addEventListener("abort", gone, { once: true });
      this.waiting.set(id, done);
      for (const listener of [...this.listeners]) this.notify(listener, published);
    });
  }

  private notify(listener: ConfirmationListener, request: PublishedConfirmation): void {
    let answer: ReturnType<ConfirmationListener>;
    try {
      answer = listener(request);
    } catch {
      return; // A failing listener is not an answer; others (or the expiry) decide.
    }
    Promise.resolve(answer).then(
      (response) => {
        if (response) this.respond(request.id, response);
      },
      () => undefined,
    );
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason = signal?.reason;
  if (reason instanceof Error) return reason;
  const error = new Error("the confirmation was cancelled");
  error.name = "AbortError";
  return error;
}
