/**
 * @module bus/message-bus
 * The message bus for confirmations, for hosts that publish/subscribe: each call's confirmation request
 * (call id, call, details, agent, signal) is published with a unique correlation id, waits for the response
 * carrying that id, times out, and is withdrawn when the call's signal aborts. Responses reach only their
 * requester. As the pipeline's Confirmer, an unanswered request (no listener, timeout) is a refusal.
 */
import { randomUUID } from "node:crypto";
import {
  type ConfirmationRequest,
  type ConfirmationResponse,
  type Confirmer,
  DEFAULT_CONFIRM_TIMEOUT_MS,
} from "../core/index.js";

/** A call's confirmation request as listeners see it: the request plus its correlation id. */
export interface PublishedConfirmation extends ConfirmationRequest {
  /** Correlation id: answer with `bus.respond(id, response)` (not the call's id, `callId`). */
  id: string;
  /** When the request was published (ms since epoch). */
  createdAt: number;
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
  /** How long a request waits for an answer. Default 5 minutes. */
  timeoutMs?: number;
}

interface Pending {
  resolve(response: ConfirmationResponse): void;
}

/**
 * @example
 * const bus = new MessageBus();
 * bus.onConfirmation(async (req) => ({ approved: await askUser(req.details, req.signal) }));
 */
export class MessageBus implements Confirmer {
  private readonly listeners = new Set<ConfirmationListener>();
  private readonly pendingById = new Map<string, Pending>();
  private readonly timeoutMs: number;

  constructor(options: MessageBusOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  }

  /** Adds a listener; returns a function that removes it. */
  onConfirmation(listener: ConfirmationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Ids of requests still waiting. */
  pending(): string[] {
    return [...this.pendingById.keys()];
  }

  /** Answers request `id`. Returns false when no such request is waiting (answered, timed out, unknown). */
  respond(id: string, response: ConfirmationResponse): boolean {
    const waiting = this.pendingById.get(id);
    if (!waiting) return false;
    this.pendingById.delete(id);
    waiting.resolve(response);
    return true;
  }

  /**
   * Publishes a call's request and waits for its answer. Rejects with
   * ConfirmationTimeoutError, NoListenerError, or the abort reason of the request's signal.
   */
  request(call: ConfirmationRequest, options: { timeoutMs?: number } = {}): Promise<ConfirmationResponse> {
    const id = randomUUID();
    const { signal } = call;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.listeners.size === 0) return Promise.reject(new NoListenerError(id));
    const request: PublishedConfirmation = { ...call, id, createdAt: Date.now() };
    return new Promise<ConfirmationResponse>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.pendingById.delete(id);
      };
      const onAbort = () => {
        finish();
        reject(abortError(signal));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new ConfirmationTimeoutError(id, timeoutMs));
      }, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.pendingById.set(id, {
        resolve: (response) => {
          finish();
          resolve(response);
        },
      });
      for (const listener of [...this.listeners]) this.deliver(listener, request);
    });
  }

  /** The pipeline's view: any failure to get an answer is a refusal with a reason. */
  async confirm(request: ConfirmationRequest): Promise<ConfirmationResponse> {
    try {
      return await this.request(request);
    } catch (error) {
      if (error instanceof ConfirmationTimeoutError) {
        return { approved: false, reason: `no answer within ${error.timeoutMs} ms` };
      }
      if (error instanceof NoListenerError)
        return { approved: false, reason: "no one was available to approve it" };
      throw error;
    }
  }

  private deliver(listener: ConfirmationListener, request: PublishedConfirmation): void {
    let answer: ReturnType<ConfirmationListener>;
    try {
      answer = listener(request);
    } catch {
      return; // A failing listener is not an answer; others (or the timeout) decide.
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
