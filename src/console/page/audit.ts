/**
 * @module console/page/audit
 * The audit view: the log's records, newest first, filtered by the form (tool, decision, agent, a time
 * window), one page at a time — the server reads the log from its end and says where the next page starts;
 * "Older records" appends it. With "Live tail" on, the first page is reloaded every 2 seconds. Each row's
 * detail says what the record holds on why the call was decided as it was: the deciding rule, the risk, the
 * sandbox, the hooks, the flow check, and the policy's explain trace (the matched rules and their conditions,
 * kept in the record when the call was decided: the log keeps no arguments to explain it again from).
 */
import { el } from "./dom.js";
import { request } from "./request.js";
import { onStop } from "./session.js";

interface AuditRow {
  time: string;
  tool: string;
  decision: string | null;
  rule: string | null;
  risk: string | null;
  outcome: string;
  agent?: string;
  sandbox?: string;
  hooks?: { hook: string; event: string; decision?: string; failure?: string }[];
  flow?: { effect: string; sink?: string };
  explain?: string[];
}

interface AuditReply {
  file: string | null;
  records?: AuditRow[];
  next?: number | null;
  message?: string;
}

const TAIL_MS = 2_000;

/** The detail lines of one record, in toolgate's words. */
function detail(r: AuditRow): string[] {
  const lines = [
    r.rule
      ? `decided ${r.decision ?? "?"} by rule ${r.rule}`
      : `decided ${r.decision ?? "before the policy"} with no rule`,
    `risk: ${r.risk ?? "not assessed"}`,
  ];
  if (r.sandbox) lines.push(`sandbox: ${r.sandbox}`);
  for (const h of r.hooks ?? [])
    lines.push(
      `hook ${h.hook} (${h.event}): ${h.failure ? `failed: ${h.failure}` : (h.decision ?? "no decision")}`,
    );
  if (r.flow) lines.push(`information flow: ${r.flow.effect}${r.flow.sink ? ` (sink ${r.flow.sink})` : ""}`);
  return lines;
}

/** The record's `details`: the lines above, then the policy's explain trace kept at decision time. */
function why(r: AuditRow): HTMLDetailsElement {
  const more = el("details");
  more.append(el("summary", "why"));
  for (const line of detail(r)) more.append(el("p", line));
  if (r.explain?.length) {
    more.append(el("p", "policy explain (as toolgate policy check --explain shows it):"));
    more.append(el("pre", r.explain.join("\n"), "trace"));
  }
  return more;
}

function row(r: AuditRow): HTMLTableRowElement {
  const tr = el("tr");
  for (const cell of [r.time, r.tool, r.decision ?? "", r.rule ?? "", r.outcome, r.agent ?? ""])
    tr.append(el("td", cell));
  const cell = el("td");
  cell.append(why(r));
  tr.append(cell);
  return tr;
}

/** The form's query; the cursor `before` for a page after the first. */
function query(form: HTMLFormElement, before?: number): URLSearchParams {
  const q = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (typeof value === "string" && value) q.set(key, value);
  if (before !== undefined) q.set("before", String(before));
  return q;
}

/** Where the next page starts; undefined when the last page shown was the oldest. */
let next: number | undefined;
/** Each load's number: a reply to a load that a newer one replaced is dropped. */
let loads = 0;

/** Loads the first page the form's filters select into the table (or, with `older`, the next page). */
export async function loadAudit(form: HTMLFormElement, older = false): Promise<void> {
  if (older && next === undefined) return;
  const load = ++loads;
  const file = document.getElementById("audit-file") as HTMLParagraphElement;
  let body: AuditReply;
  try {
    body = await request<AuditReply>(`/api/audit?${query(form, older ? next : undefined)}`);
  } catch (error) {
    file.textContent = `Not loaded: ${(error as Error).message}`;
    return;
  }
  if (load !== loads) return;
  const more = document.getElementById("audit-more") as HTMLButtonElement;
  if (body.message) {
    file.textContent = body.message;
    return;
  }
  file.textContent = body.file
    ? `From ${body.file}`
    : "No audit log is configured ([audit] file, or --audit).";
  const tbody = document.querySelector("#audit-table tbody") as HTMLTableSectionElement;
  const rows = (body.records ?? []).map(row);
  if (older) tbody.append(...rows);
  else tbody.replaceChildren(...rows);
  next = body.next ?? undefined;
  more.hidden = next === undefined;
}

/** Wires the form: Filter loads; "Older records" appends; "Live tail" reloads every 2 seconds while checked. */
export function wireAudit(form: HTMLFormElement): void {
  let timer: ReturnType<typeof setInterval> | undefined;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void loadAudit(form);
  });
  (document.getElementById("audit-more") as HTMLButtonElement).addEventListener(
    "click",
    () => void loadAudit(form, true),
  );
  const tail = document.getElementById("audit-tail") as HTMLInputElement;
  tail.addEventListener("change", () => {
    clearInterval(timer);
    timer = tail.checked ? setInterval(() => void loadAudit(form), TAIL_MS) : undefined;
  });
  onStop(() => clearInterval(timer));
  void loadAudit(form);
}
