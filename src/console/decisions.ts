/**
 * @module console/decisions
 * What the console's answers do to the store: one ask approved once, always, or denied; and a batch — the
 * pending asks of one agent turn — approved or denied together, all or nothing. "Always" is accepted only for
 * an ask whose asking process published a rule (it checked that no deny shadows it, and it writes the rule
 * when the answer reaches it); otherwise the answer is refused with the offer's reason.
 */
import { type ApprovalRecord, type ApprovalStore, displaySafe, settledMessage } from "../core/index.js";
import { alwaysView, askView, unseenRefusal } from "./views.js";

/** An answer the page sends. */
export type ConsoleDecision = "approve" | "always" | "deny";

/** The outcome the page is sent (an HTTP status with it). */
export type DecisionReply =
  | { status: 200; body: { ok: true; asks: ReturnType<typeof askView>[] } }
  | { status: 400 | 404 | 409; body: { ok: false; message: string; decided?: string[] } };

/** Most asks one batch may answer. */
export const MAX_BATCH = 1_000;

/** A refusal; its texts carry names from records (who decided), so they are made display-safe here. */
const refuse = (status: 400 | 404 | 409, message: string, decided?: string[]): DecisionReply => ({
  status,
  body: {
    ok: false,
    message: displaySafe(message, false),
    ...(decided ? { decided: decided.map((d) => displaySafe(d, false)) } : {}),
  },
});

/** The decision in a request body, or undefined. */
export function parseDecision(raw: unknown): ConsoleDecision | undefined {
  return raw === "approve" || raw === "always" || raw === "deny" ? raw : undefined;
}

/** Why `record` cannot be answered "always", or undefined when its offer holds a rule. */
export function alwaysRefusal(record: ApprovalRecord): string | undefined {
  const offer = alwaysView(record.always);
  if (offer === null) return `"always" is not offered for this call: the process that asked offers no rule`;
  if ("refused" in offer) return `"always" is refused for this call: ${offer.refused}`;
  return undefined;
}

function answerOf(decision: ConsoleDecision, by: string, reason: string) {
  return {
    approved: decision !== "deny",
    by,
    ...(decision === "always" ? { scope: "always" as const } : {}),
    ...(reason === "" ? {} : { reason }),
  };
}

/**
 * The console's answers over one store. Its batches run one at a time, so two batches never interleave:
 * each checks every ask is still pending and then answers them, with no other batch of this console between.
 * @example await new ConsoleDecisions(store).batch([a, b], "deny", "alice", "one turn at a time")
 */
export class ConsoleDecisions {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: ApprovalStore) {}

  /** Answers one ask. "always" is checked against the ask's published offer first. */
  async one(id: string, decision: ConsoleDecision, by: string, reason: string): Promise<DecisionReply> {
    if (decision !== "deny") {
      const record = await this.store.get(id);
      if (!record) return refuse(404, `no approval with id ${JSON.stringify(id)}`);
      const unseen = unseenRefusal(record);
      if (unseen) return refuse(409, `not approved: ${unseen}`);
      const refused = decision === "always" ? alwaysRefusal(record) : undefined;
      if (refused) return refuse(409, refused);
    }
    const result = await this.store.answer(id, answerOf(decision, by, reason));
    if (result.ok) return { status: 200, body: { ok: true, asks: [askView(result.record)] } };
    return refuse(result.record ? 409 : 404, result.message);
  }

  /**
   * Approves or denies `ids` together: when any is no longer pending (or unknown), none is answered and the
   * reply names each one and who decided it. An answer another process (a terminal) gives between the check
   * and this batch's answers is the one window left: the reply then says which asks it lost, by whom.
   */
  batch(
    ids: readonly string[],
    decision: "approve" | "deny",
    by: string,
    reason: string,
  ): Promise<DecisionReply> {
    const run = this.queue.then(() => this.answerAll(ids, decision, by, reason));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async answerAll(
    ids: readonly string[],
    decision: "approve" | "deny",
    by: string,
    reason: string,
  ): Promise<DecisionReply> {
    if (ids.length === 0) return refuse(400, "a batch needs at least one approval id");
    if (ids.length > MAX_BATCH) return refuse(400, `a batch answers at most ${MAX_BATCH} approvals`);
    const records = await Promise.all(ids.map((id) => this.store.get(id)));
    const decided: string[] = [];
    for (const [i, record] of records.entries()) {
      if (!record) decided.push(`no approval with id ${JSON.stringify(ids[i])}`);
      else if (record.state !== "pending") decided.push(settledMessage(record) ?? record.state);
    }
    if (decided.length > 0)
      return refuse(409, `none was answered: ${decided.length} of ${ids.length} already decided`, decided);
    const unseen = decision === "approve" ? records.flatMap((r) => (r && unseenRefusal(r) ? [r] : [])) : [];
    if (unseen.length > 0)
      return refuse(
        409,
        `none was answered: ${unseen.length} of ${ids.length} cannot be approved here`,
        unseen.map((r) => `${r.id}: ${unseenRefusal(r)}`),
      );
    const answer = answerOf(decision, by, reason);
    const results = await Promise.all(ids.map((id) => this.store.answer(id, answer)));
    const lost = results.flatMap((r) => (r.ok ? [] : [r.message]));
    if (lost.length > 0)
      return refuse(
        409,
        `${ids.length - lost.length} of ${ids.length} were answered; ${lost.length} decided elsewhere at the same moment`,
        lost,
      );
    const asks = results.flatMap((r) => (r.ok ? [askView(r.record)] : []));
    return { status: 200, body: { ok: true, asks } };
  }
}
