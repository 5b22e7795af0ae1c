/**
 * @module console/page/app
 * The console page's script (bundled for the browser by scripts/bundle.mjs into dist/console/page/app.js;
 * type-checked with the DOM library by src/console/page/tsconfig.json). Everything from the server is put
 * into the page as text (`textContent`), never as HTML. Pending asks come from /api/approvals, then live from
 * /api/events; every request carries the session (page/session.ts), a change also the CSRF token.
 */

import { authFetch, openStream, requireSession } from "./session.js";

interface AskView {
  id: string;
  tool: string;
  agent: string | null;
  state: string;
  createdAt: number;
  expiresAt: number;
  heading: string;
  fields: { label: string; text: string; multiline: boolean }[];
  sandbox: string;
  settled: string | null;
}

interface AuditRow {
  time: string;
  tool: string;
  decision: string | null;
  rule: string | null;
  outcome: string;
  agent?: string;
}

(document.getElementById("who") as HTMLSpanElement).textContent = requireSession().name;
const list = document.getElementById("asks") as HTMLOListElement;
const none = document.getElementById("none") as HTMLParagraphElement;
const statusLine = document.getElementById("status") as HTMLSpanElement;
const items = new Map<string, HTMLLIElement>();

/** An element with text (never HTML) and optional class. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function refreshEmpty(): void {
  none.hidden = items.size > 0;
}

async function send(
  id: string,
  decision: "approve" | "deny",
  reason: string,
): Promise<{ ok: boolean; message?: string }> {
  const response = await authFetch(`/api/approvals/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ decision, reason }),
  });
  return (await response.json()) as { ok: boolean; message?: string };
}

function askItem(ask: AskView): HTMLLIElement {
  const item = el("li", undefined, "ask");
  item.dataset.id = ask.id;
  const headingId = `ask-${ask.id}`;
  const heading = el("h3", ask.heading);
  heading.id = headingId;
  item.setAttribute("aria-labelledby", headingId);
  item.append(heading);
  const meta = `${ask.agent ? `agent ${ask.agent} · ` : ""}asked ${new Date(ask.createdAt).toLocaleTimeString()} · expires ${new Date(ask.expiresAt).toLocaleTimeString()}`;
  item.append(el("p", meta, "meta"));
  for (const field of ask.fields) {
    const row = el("div", undefined, "field");
    row.append(el("span", `${field.label}:`, "label"), el("div", field.text, "quoted"));
    item.append(row);
  }
  item.append(el("p", ask.sandbox, "field"));
  const actions = el("div", undefined, "actions");
  const reasonId = `reason-${ask.id}`;
  const label = el("label", "Reason (the model sees it)");
  label.htmlFor = reasonId;
  const reason = el("input");
  reason.id = reasonId;
  reason.type = "text";
  reason.maxLength = 2000;
  const approve = el("button", "Approve");
  const deny = el("button", "Deny");
  approve.type = deny.type = "button";
  const outcome = el("p", undefined, "outcome");
  outcome.setAttribute("role", "status");
  const decide = async (decision: "approve" | "deny") => {
    approve.disabled = deny.disabled = true;
    try {
      const result = await send(ask.id, decision, reason.value);
      if (result.ok) outcome.textContent = decision === "approve" ? "Approved." : "Denied.";
      else {
        outcome.textContent = result.message ?? "The answer was not recorded.";
        outcome.className = "outcome lost";
      }
    } catch (error) {
      outcome.textContent = `The answer could not be sent: ${(error as Error).message}`;
      approve.disabled = deny.disabled = false;
    }
  };
  approve.addEventListener("click", () => void decide("approve"));
  deny.addEventListener("click", () => void decide("deny"));
  actions.append(approve, label, reason, deny);
  item.append(actions, outcome);
  return item;
}

/** A record arrived (listed, published or settled): show it, or mark it settled. */
function show(ask: AskView): void {
  const existing = items.get(ask.id);
  if (ask.state === "pending") {
    if (existing) return;
    const item = askItem(ask);
    items.set(ask.id, item);
    list.append(item);
  } else if (existing) {
    const outcome = existing.querySelector(".outcome") as HTMLElement;
    for (const button of existing.querySelectorAll("button")) button.disabled = true;
    // Someone else's answer (or the expiry) is said in the store's words; our own stays as we said it.
    if (!outcome.textContent) outcome.textContent = ask.settled ?? ask.state;
    existing.dataset.state = ask.state;
  }
  refreshEmpty();
}

async function loadPending(): Promise<void> {
  const response = await authFetch("/api/approvals");
  const body = (await response.json()) as { pending: AskView[] };
  for (const ask of body.pending) show(ask);
}

function connect(): void {
  openStream("/api/events", {
    events: {
      ready: () => void loadPending(),
      ask: (data) => show(JSON.parse(data) as AskView),
    },
    status: (state) => {
      statusLine.textContent = state === "live" ? "live" : "reconnecting…";
    },
  });
}

async function loadAudit(form: HTMLFormElement): Promise<void> {
  const query = new URLSearchParams();
  for (const [key, value] of new FormData(form))
    if (typeof value === "string" && value) query.set(key, value);
  const response = await authFetch(`/api/audit?${query}`);
  const body = (await response.json()) as { file: string | null; records: AuditRow[] };
  const file = document.getElementById("audit-file") as HTMLParagraphElement;
  file.textContent = body.file
    ? `From ${body.file}`
    : "No audit log is configured ([audit] file, or --audit).";
  const tbody = document.querySelector("#audit-table tbody") as HTMLTableSectionElement;
  tbody.replaceChildren(
    ...body.records.map((r) => {
      const row = el("tr");
      for (const cell of [r.time, r.tool, r.decision ?? "", r.rule ?? "", r.outcome, r.agent ?? ""])
        row.append(el("td", cell));
      return row;
    }),
  );
}

const auditForm = document.getElementById("audit-filter") as HTMLFormElement;
auditForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void loadAudit(auditForm);
});
refreshEmpty();
connect();
void loadAudit(auditForm);
