/**
 * @module console/page/ask-item
 * One pending ask on the page: its confirmation details as the terminal shows them, a countdown to its
 * expiry (with a warning in its last 30 seconds), and its answers — Approve, Deny with a reason the model
 * sees, and Approve always, which first shows the exact rule, where it goes, one call it matches and one it
 * does not (or why there is none), and answers only once that is confirmed.
 */
import { type AlwaysOffered, type AskView, button, type DecisionReply, el } from "./dom.js";
import { request } from "./request.js";

/** The last stretch before expiry in which an ask is shown as expiring. */
export const WARN_MS = 30_000;

/** The countdown's words for `ms` left. */
export function countdownText(ms: number): string {
  if (ms <= 0) return "expiring now: unanswered, it is denied";
  const s = Math.ceil(ms / 1000);
  const clock = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return ms <= WARN_MS ? `expires in ${clock}: answer now, or it is denied` : `expires in ${clock}`;
}

/** Answers one ask; the reply, or why it could not be sent. */
export async function answer(id: string, decision: string, reason: string): Promise<DecisionReply> {
  try {
    return await request<DecisionReply>(`/api/approvals/${encodeURIComponent(id)}`, { decision, reason });
  } catch (error) {
    return { ok: false, message: `The answer could not be sent: ${(error as Error).message}` };
  }
}

/** The panel "Approve always" opens: the rule and its examples, or why "always" is not possible. */
function alwaysPanel(ask: AskView, confirm: () => void, close: () => void): HTMLDivElement {
  const panel = el("div", undefined, "always");
  panel.id = `always-${ask.id}`;
  panel.hidden = true;
  const offer: AlwaysOffered = ask.always ?? {
    refused:
      "the process that asked offers no rule (it answers in its own terminal, or is not toolgate's CLI)",
  };
  const cancel = button("Cancel");
  cancel.addEventListener("click", close);
  if ("refused" in offer) {
    panel.append(
      el("p", "Approve always is not possible for this call:"),
      el("div", offer.refused, "quoted"),
    );
    panel.append(el("div", undefined, "actions"));
    panel.lastElementChild?.append(cancel);
    return panel;
  }
  panel.append(
    el("p", `Approve always adds this rule to ${offer.file}, allowing exactly this call from now on:`),
    el("div", offer.rule, "quoted rule"),
    el("p", "It matches, for example:"),
    el("div", offer.matches, "quoted"),
    el("p", "It does not match, for example:"),
    el("div", offer.notMatches, "quoted"),
  );
  const add = button("Add the rule and approve");
  add.addEventListener("click", confirm);
  const actions = el("div", undefined, "actions");
  actions.append(add, cancel);
  panel.append(actions);
  return panel;
}

/** The list item of one ask, with its answers wired. */
export function askItem(ask: AskView): HTMLLIElement {
  const item = el("li", undefined, "ask");
  item.dataset.id = ask.id;
  item.dataset.expiresAt = String(ask.expiresAt);
  item.tabIndex = -1;
  const heading = el("h4", ask.heading);
  heading.id = `ask-${ask.id}`;
  item.setAttribute("aria-labelledby", heading.id);
  item.append(heading);
  item.append(el("p", `asked ${new Date(ask.createdAt).toLocaleTimeString()}`, "meta"));
  const countdown = el("p", countdownText(ask.expiresAt - Date.now()), "countdown");
  item.append(countdown);
  for (const field of ask.fields) {
    const row = el("div", undefined, "field");
    row.append(el("span", `${field.label}:`, "label"), el("div", field.text, "quoted"));
    item.append(row);
  }
  item.append(el("p", ask.sandbox, "field"));
  const reasonId = `reason-${ask.id}`;
  const label = el("label", "Reason (the model sees it)");
  label.htmlFor = reasonId;
  const reason = el("input");
  reason.id = reasonId;
  reason.type = "text";
  reason.maxLength = 2000;
  const approve = button("Approve");
  const deny = button("Deny");
  const always = button("Approve always");
  always.setAttribute("aria-expanded", "false");
  always.setAttribute("aria-controls", `always-${ask.id}`);
  const outcome = el("p", undefined, "outcome");
  outcome.setAttribute("role", "status");
  const buttons = [approve, deny, always];
  const decide = async (decision: "approve" | "always" | "deny") => {
    for (const b of buttons) b.disabled = true;
    const reply = await answer(ask.id, decision, reason.value);
    if (reply.ok) {
      outcome.textContent =
        decision === "deny"
          ? "Denied."
          : decision === "always"
            ? "Approved always: the process that asked adds the rule."
            : "Approved.";
      panel.hidden = true;
    } else {
      outcome.textContent = reply.message;
      outcome.className = "outcome lost";
    }
  };
  const close = () => {
    panel.hidden = true;
    always.setAttribute("aria-expanded", "false");
    always.focus();
  };
  const panel = alwaysPanel(ask, () => void decide("always"), close);
  approve.addEventListener("click", () => void decide("approve"));
  deny.addEventListener("click", () => void decide("deny"));
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") void decide("deny");
    if (event.key === "Escape") item.focus();
  });
  always.addEventListener("click", () => {
    panel.hidden = false;
    always.setAttribute("aria-expanded", "true");
    panel.querySelector("button")?.focus();
  });
  const actions = el("div", undefined, "actions");
  actions.append(approve, always, label, reason, deny);
  item.append(actions, panel, outcome);
  if (ask.unseen) {
    // Nothing approves what the page could not show whole (the server refuses it too).
    approve.disabled = true;
    always.disabled = true;
    item.dataset.unseen = "";
    item.insertBefore(el("p", `Approving is not offered here: ${ask.unseen}`, "unseen error"), actions);
  }
  return item;
}

/** Marks an item settled: its answers disabled, the store's words said unless ours already are. */
export function settleItem(item: HTMLLIElement, ask: AskView): void {
  const outcome = item.querySelector(".outcome") as HTMLElement;
  for (const b of item.querySelectorAll("button")) b.disabled = true;
  (item.querySelector(".always") as HTMLElement).hidden = true;
  if (!outcome.textContent) outcome.textContent = ask.settled ?? ask.state;
  item.dataset.state = ask.state;
  item.querySelector(".countdown")?.remove();
}
