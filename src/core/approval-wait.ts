/**
 * @module core/approval-wait
 * Waiting for an ask over any store whose `get` expires an overdue ask itself: subscribe first, then read,
 * so an answer given before the wait began is never missed. A wake-up carrying the settled record ends the
 * wait with that record (an ask leaves `pending` once, so a settled record is final; re-reading it would only
 * cost a round trip), and a timer set for the ask's expiry makes the waiter write the expiry when no one else
 * does.
 */
import { unknownApprovalMessage } from "./approval-store.js";
import type { ApprovalRecord, ApprovalStore } from "./types.js";

/** setTimeout's largest delay; a longer wait re-arms. */
const MAX_TIMER_MS = 2_147_483_647;

/** Options of {@link waitForSettlement}. */
export interface WaitOptions {
  /** The store's clock, ms since the epoch. */
  now: () => number;
  signal?: AbortSignal;
}

/**
 * Resolves with the settled record of `id`; rejects with the signal's reason when it aborts first, and for
 * an unknown id or a failing read.
 * @example await waitForSettlement(store, ask.id, { now: Date.now, signal })
 */
export function waitForSettlement(
  store: Pick<ApprovalStore, "get" | "watch">,
  id: string,
  options: WaitOptions,
): Promise<ApprovalRecord> {
  const { signal, now } = options;
  return new Promise<ApprovalRecord>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unwatch();
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    const check = () => {
      if (done) return;
      store.get(id).then(
        (record) => {
          if (done) return;
          if (!record) return finish(() => reject(new Error(unknownApprovalMessage(id))));
          if (record.state !== "pending") return finish(() => resolve(record));
          // Not yet due: look again when it will be (the read then writes the expiry).
          clearTimeout(timer);
          timer = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(0, record.expiresAt - now())));
        },
        (error: unknown) => finish(() => reject(error)),
      );
    };
    const unwatch = store.watch((record) => {
      if (record.id === id && record.state !== "pending") finish(() => resolve(record));
    });
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    check();
  });
}
