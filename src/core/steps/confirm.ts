/**
 * @module core/steps/confirm
 * Step 4: for `ask`, publish the call's ask in the approval store, put the confirmation request to whoever
 * answers here (the call's own `confirm`, else the gate's confirmer), record that answer in the store, and
 * wait until the ask is settled — by that answer, an earlier one (a shared store's console), its expiry or
 * the call's cancellation. The settled record decides; only `approved` runs, everything else is a deny.
 */
import { InProcessApprovalStore, SETTLED_BY_TOOLGATE } from "../approval-store.js";
import { DEFAULT_CONFIRM_TIMEOUT_MS } from "../confirmation.js";
import type {
  AlwaysOffered,
  ApprovalRecord,
  ApprovalStore,
  Confirm,
  ConfirmationRequest,
  ConfirmationResponse,
} from "../types.js";

/** The reason of an ask nobody could answer: no local answerer, and a store no one else can see. */
const NOBODY = "it needs approval and no one was available to approve it";

export type ConfirmOutcome =
  | { approved: true; ask?: ApprovalRecord }
  | { approved: false; reason: string; cancelled?: boolean };

/**
 * What the asking process offers for "approve always" to answerers elsewhere (the console's seam): the rule
 * as shown, published with the ask, and the writer that adds exactly that rule once the ask is settled
 * "always" by someone else (an answer given here never writes through it). The writer reports its own
 * outcome (it never throws for a failed write).
 */
export interface AlwaysRuleOffer {
  shown: AlwaysOffered;
  write?: () => Promise<void>;
}

/** Makes the {@link AlwaysRuleOffer} for one asked call. */
export type OfferAlwaysRule = (request: ConfirmationRequest) => Promise<AlwaysRuleOffer>;

/** What one ask is put through. */
export interface AskOptions {
  /** Where the ask is kept. Default: a store of its own (then only `confirm` can answer it). */
  approvals?: ApprovalStore;
  /** Who answers in this process: a call's own confirm, or the gate's confirmer. */
  confirm?: Confirm;
  /** Recorded as who answered when the response names no one (`caller`, `confirmer`). */
  by?: string;
  /** How long the ask stays pending (default 5 minutes). */
  timeoutMs?: number;
  /** The digest of the call's validated arguments, kept with the ask (what an "always" rule names). */
  argsDigest?: string;
  /** What "always" adds: published with the ask, written when it is answered so elsewhere. */
  offerAlways?: OfferAlwaysRule;
}

/**
 * The one path every ask takes: publish, answer, wait. Resolves with the settled record; rejects with the
 * call's abort reason when its signal aborts first (the ask is withdrawn), or with the store's error.
 * `confirm` receives the request with a signal that also aborts once the ask is settled some other way
 * (expired, answered elsewhere), so a prompt can be withdrawn.
 */
export async function askApproval(
  options: AskOptions,
  request: ConfirmationRequest,
): Promise<ApprovalRecord> {
  const approvals = options.approvals ?? new InProcessApprovalStore();
  const { signal } = request;
  signal.throwIfAborted();
  const offer = await alwaysOfferFor(options.offerAlways, request);
  const ask = await approvals.publish({
    callId: request.callId,
    tool: request.details.toolName,
    details: request.details,
    ...(request.agent === undefined ? {} : { agent: request.agent }),
    ...(options.argsDigest === undefined ? {} : { argsDigest: options.argsDigest }),
    ...(offer ? { always: offer.shown } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS,
  });
  const settled = new AbortController();
  // A failed write of our own answer fails the ask (closed), instead of leaving it to its expiry.
  let failWrite: (error: unknown) => void = () => undefined;
  const writeFailed = new Promise<never>((_, reject) => {
    failWrite = reject;
  });
  const record = (answer: Parameters<ApprovalStore["answer"]>[1]) =>
    approvals.answer(ask.id, answer).then(() => undefined, failWrite);
  // An answer given here (a terminal's "always" writes its own rule) never makes the offer write as well.
  let answeredHere = false;
  const { confirm } = options;
  if (confirm) {
    const asked = { ...request, signal: AbortSignal.any([signal, settled.signal]) };
    Promise.resolve()
      .then(() => confirm(asked, ask))
      .then(
        (response) => {
          // Withdrawn (the call was cancelled) or settled meanwhile: that answer came too late to count.
          if (asked.signal.aborted) return;
          answeredHere = true;
          return record(answerOf(response, options.by ?? "caller"));
        },
        (error: unknown) => {
          // As above; otherwise a failing confirm is a refusal.
          if (asked.signal.aborted) return;
          const reason = `the confirmation failed (${(error as Error)?.message ?? String(error)})`;
          return record({ approved: false, by: SETTLED_BY_TOOLGATE, reason });
        },
      );
  } else if (!approvals.shared) {
    void record({ approved: false, by: SETTLED_BY_TOOLGATE, reason: NOBODY });
  }
  try {
    const settledAsk = await Promise.race([approvals.wait(ask.id, { signal }), writeFailed]);
    const { shown, write } = offer ?? {};
    if (write && shown && "rule" in shown && !answeredHere && settledAsk.state === "approved")
      if (settledAsk.settled?.scope === "always") await write();
    return settledAsk;
  } catch (error) {
    if (signal.aborted) await approvals.withdraw(ask.id).catch(() => undefined);
    throw error;
  } finally {
    settled.abort();
  }
}

/** The offer for one request; a failing offer is a refusal, said with the ask. */
async function alwaysOfferFor(
  offerAlways: OfferAlwaysRule | undefined,
  request: ConfirmationRequest,
): Promise<AlwaysRuleOffer | undefined> {
  if (!offerAlways) return undefined;
  try {
    return await offerAlways(request);
  } catch (error) {
    return { shown: { refused: `the rule could not be made (${(error as Error).message})` } };
  }
}

/** Puts one call's ask through {@link askApproval} and turns every outcome but `approved` into a refusal. */
export async function confirmCall(
  options: AskOptions,
  request: ConfirmationRequest,
): Promise<ConfirmOutcome> {
  try {
    return outcomeOf(await askApproval(options, request));
  } catch (error) {
    if (request.signal.aborted)
      return { approved: false, reason: "the confirmation was cancelled", cancelled: true };
    return { approved: false, reason: `the approval store failed (${(error as Error).message})` };
  }
}

function answerOf(response: ConfirmationResponse | undefined, by: string) {
  const approved = response?.approved === true;
  return {
    approved,
    by: typeof response?.by === "string" && response.by !== "" ? response.by : by,
    ...(approved && response?.always === true ? { scope: "always" as const } : {}),
    ...(typeof response?.reason === "string" ? { reason: response.reason } : {}),
  };
}

/** What a settled ask means for the call. A reason toolgate wrote itself is already a whole sentence. */
function outcomeOf(record: ApprovalRecord): ConfirmOutcome {
  const { state, settled } = record;
  if (state === "approved") return { approved: true, ask: record };
  if (state === "cancelled")
    return { approved: false, reason: "the confirmation was cancelled", cancelled: true };
  if (state === "expired") {
    return {
      approved: false,
      reason: `it was not approved: no answer within ${record.expiresAt - record.createdAt} ms`,
    };
  }
  if (settled?.by === SETTLED_BY_TOOLGATE && settled.reason)
    return { approved: false, reason: settled.reason };
  return {
    approved: false,
    reason: settled?.reason ? `it was not approved: ${settled.reason}` : "it was not approved",
  };
}
