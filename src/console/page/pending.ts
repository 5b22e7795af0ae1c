/**
 * @module console/page/pending
 * The pending view: asks grouped by asking process, project, worker and agent, groups and asks oldest
 * first. A group's pending asks are its agent's current turn (an agent waits for every call of a turn before
 * the next), so a group is answered together — only the asks shown (the server refuses a batch when the group
 * holds others), and never within a second of the group changing (its batch buttons wait). Approve all /
 * Deny all are all or nothing: when any was decided meanwhile, none changes and the group says which and by
 * whom. Countdowns tick once a second; an expired ask leaves the list and a
 * note says so.
 */
import { askItem, countdownText, settleItem, WARN_MS } from "./ask-item.js";
import { type AskView, announce, button, type DecisionReply, el } from "./dom.js";
import { request } from "./request.js";

interface Group {
  section: HTMLElement;
  list: HTMLOListElement;
  oldest: number;
  /** What the server checks a batch against: the group's process, project, worker and agent. */
  key: { process: string | null; project: string | null; worker: string | null; agent: string | null };
  /** The pending ids as last shown, and until when the batch buttons wait after they changed. */
  shown: string;
  heldUntil: number;
}

/** How long a group's batch buttons stay disabled after its asks changed: nothing joins a click unseen. */
const HOLD_MS = 1_000;

const root = document.getElementById("asks") as HTMLDivElement;
const none = document.getElementById("none") as HTMLParagraphElement;
const notes = document.getElementById("expired") as HTMLUListElement;
const items = new Map<string, HTMLLIElement>();
const groups = new Map<string, Group>();
let made = 0;

const groupTitle = (ask: AskView) =>
  `${ask.agent ? `Agent ${ask.agent}` : "Main agent"} · ${ask.worker ? `worker ${ask.worker}` : "this machine"}`;

/** The ids of a group's asks still pending (answered ones stay shown, settled). */
const pendingIds = (group: Group) =>
  [...group.list.querySelectorAll<HTMLLIElement>("li.ask:not([data-state])")].map((li) => li.dataset.id!);

function refresh(): void {
  let pending = 0;
  for (const group of groups.values()) {
    const ids = pendingIds(group);
    const n = ids.length;
    pending += n;
    const count = group.section.querySelector(".count") as HTMLElement;
    count.textContent = `${n} pending`;
    const shown = ids.join(",");
    if (shown !== group.shown) {
      group.shown = shown;
      group.heldUntil = Date.now() + HOLD_MS;
      setTimeout(refresh, HOLD_MS + 50);
    }
    const held = Date.now() < group.heldUntil;
    group.section.toggleAttribute("data-held", held);
    for (const b of group.section.querySelectorAll<HTMLButtonElement>(".batch button"))
      b.disabled = n === 0 || held;
    // Approve all never covers an ask the page could not show whole.
    const unseen = group.list.querySelector("li.ask[data-unseen]:not([data-state])");
    const approveAll = group.section.querySelector<HTMLButtonElement>(".batch button");
    if (approveAll && unseen) approveAll.disabled = true;
  }
  none.hidden = pending > 0;
}

async function batch(group: Group, decision: "approve" | "deny", reason: string, outcome: HTMLElement) {
  const ids = pendingIds(group);
  let reply: DecisionReply;
  try {
    reply = await request<DecisionReply>("/api/approvals/batch", { ids, group: group.key, decision, reason });
  } catch (error) {
    reply = { ok: false, message: `The answer could not be sent: ${(error as Error).message}` };
  }
  outcome.replaceChildren();
  if (reply.ok) {
    outcome.textContent = `${decision === "approve" ? "Approved" : "Denied"} all ${reply.asks.length}.`;
    outcome.className = "outcome";
    for (const ask of reply.asks) {
      const item = items.get(ask.id);
      const said = item?.querySelector(".outcome");
      if (said) said.textContent = decision === "approve" ? "Approved (batch)." : "Denied (batch).";
      show(ask);
    }
    return;
  }
  outcome.className = "outcome lost";
  outcome.append(el("span", reply.message));
  if (reply.decided?.length) {
    const list = el("ul");
    for (const line of reply.decided) list.append(el("li", line));
    outcome.append(list);
  }
}

const groupKey = (ask: AskView) =>
  [ask.process, ask.project, ask.worker, ask.agent].map((part) => part ?? "").join("\u0000");

/** The project and process of a group, so two projects' asks never look like one turn. */
const groupOrigin = (ask: AskView) =>
  `Project ${ask.project ?? "not named"} · process ${ask.process ?? "not named"}`;

function groupFor(ask: AskView): Group {
  const found = groups.get(groupKey(ask));
  if (found) return found;
  const section = el("section", undefined, "group");
  const title = el("h3", groupTitle(ask));
  title.id = `group-${++made}`;
  section.setAttribute("aria-labelledby", title.id);
  const list = el("ol", undefined, "group-asks");
  const key = { process: ask.process, project: ask.project, worker: ask.worker, agent: ask.agent };
  const group: Group = { section, list, oldest: ask.createdAt, key, shown: "", heldUntil: 0 };
  const controls = el("div", undefined, "actions batch");
  const reasonId = `${title.id}-reason`;
  const label = el("label", "Reason for all (the model sees it)");
  label.htmlFor = reasonId;
  const reason = el("input");
  reason.id = reasonId;
  reason.type = "text";
  reason.maxLength = 2000;
  const approveAll = button("Approve all");
  const denyAll = button("Deny all");
  const outcome = el("div", undefined, "outcome");
  outcome.setAttribute("role", "status");
  approveAll.addEventListener("click", () => void batch(group, "approve", reason.value, outcome));
  denyAll.addEventListener("click", () => void batch(group, "deny", reason.value, outcome));
  controls.append(approveAll, label, reason, denyAll);
  section.append(title, el("p", groupOrigin(ask), "origin meta"), el("p", "", "count meta"));
  section.append(el("p", "This turn's asks, together:", "meta"));
  section.append(controls, outcome, list);
  // Groups by their oldest ask: the one waiting longest comes first.
  const after = [...groups.values()].find((g) => g.oldest > group.oldest);
  root.insertBefore(section, after?.section ?? null);
  groups.set(groupKey(ask), group);
  return group;
}

/** A group left with no ask goes. */
function dropIfEmpty(ask: AskView): void {
  const key = groupKey(ask);
  const group = groups.get(key);
  if (group && group.list.children.length === 0) {
    group.section.remove();
    groups.delete(key);
  }
}

/** Puts one ask in the page without recounting (see {@link show}). */
function place(ask: AskView): void {
  const existing = items.get(ask.id);
  if (ask.state === "pending") {
    if (existing) return;
    const item = askItem(ask);
    items.set(ask.id, item);
    const { list } = groupFor(ask);
    item.dataset.createdAt = String(ask.createdAt);
    // Asks mostly come oldest first: look from the end for the first one asked later.
    let later: Element | null = null;
    for (let li = list.lastElementChild; li; li = li.previousElementSibling) {
      if (Number((li as HTMLElement).dataset.createdAt) <= ask.createdAt) break;
      later = li;
    }
    list.insertBefore(item, later);
  } else if (existing) {
    if (ask.state === "expired") {
      existing.remove();
      items.delete(ask.id);
      dropIfEmpty(ask);
      notes.append(
        el("li", `${ask.heading}: expired with no answer, so it was denied (${ask.settled ?? ""})`),
      );
    } else settleItem(existing, ask);
  }
}

/** An ask arrived (published or settled): show it, mark it settled, or take an expired one away. */
export function show(ask: AskView): void {
  place(ask);
  refresh();
}

/** The listed asks, all at once: the counts are made once, not once per ask (a list may hold 1,000). */
export function showAll(asks: readonly AskView[]): void {
  for (const ask of asks) place(ask);
  refresh();
}

/** Ticks every countdown; announces an ask entering its last 30 seconds once. */
export function tick(): void {
  const now = Date.now();
  for (const item of items.values()) {
    const countdown = item.querySelector<HTMLElement>(".countdown");
    if (!countdown) continue;
    const left = Number(item.dataset.expiresAt) - now;
    countdown.textContent = countdownText(left);
    if (left <= WARN_MS && !countdown.classList.contains("expiring")) {
      countdown.classList.add("expiring");
      announce(`${item.querySelector("h4")?.textContent ?? "An ask"} ${countdownText(left)}`);
    }
  }
}

refresh();
