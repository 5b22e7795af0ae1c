/**
 * @module core/steps/confirm
 * Step 4: for `ask`, put the call's confirmation request to its `confirm` (the caller's own, else the gate's
 * message bus). No one to ask, no answer, a refusal, or a failing confirm: all are a deny. Aborting the call's
 * signal withdraws the question and cancels the call. Only an explicit yes runs.
 */
import type { Confirm, ConfirmationRequest, ConfirmationResponse } from "../types.js";

export type ConfirmOutcome = { approved: true } | { approved: false; reason: string; cancelled?: boolean };

/** Asks `confirm` about one call and turns every answer but an explicit yes into a refusal with a reason. */
export async function confirmCall(
  confirm: Confirm | undefined,
  request: ConfirmationRequest,
): Promise<ConfirmOutcome> {
  const { signal } = request;
  if (!confirm)
    return { approved: false, reason: "it needs approval and no one was available to approve it" };
  try {
    const answer = await untilAborted(confirm(request), signal);
    if (answer?.approved === true) return { approved: true };
    return {
      approved: false,
      reason: answer?.reason ? `it was not approved: ${answer.reason}` : "it was not approved",
    };
  } catch (error) {
    if (signal.aborted) return { approved: false, reason: "the confirmation was cancelled", cancelled: true };
    return { approved: false, reason: `the confirmation failed (${(error as Error).message})` };
  }
}

/** The answer, unless the call is cancelled first: a confirm that ignores its signal cannot hold a call open. */
function untilAborted(
  answer: Promise<ConfirmationResponse>,
  signal: AbortSignal,
): Promise<ConfirmationResponse> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(answer).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
