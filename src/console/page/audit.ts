/**
 * @module console/page/audit
 * The audit view: the log's records, newest first, filtered by the form (tool, decision, agent, a time
 * window); with "Live tail" on, reloaded every 2 seconds. Each row's detail says what the record holds on
 * why the call was decided as it was: the deciding rule, the risk, the sandbox, the hooks, the flow check.
 */
import { el } from "./dom.js";
import { request } from "./request.js";

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

/** Loads the records the form's filters select into the table. */
export async function loadAudit(form: HTMLFormElement): Promise<void> {
  const query = new URLSearchParams();
  for (const [key, value] of new FormData(form))
    if (typeof value === "string" && value) query.set(key, value);
  const body = await request<{ file: string | null; records?: AuditRow[]; message?: string }>(
    `/api/audit?${query}`,
  );
  const file = document.getElementById("audit-file") as HTMLParagraphElement;
  if (body.message) {
    file.textContent = body.message;
    return;
  }
  file.textContent = body.file
    ? `From ${body.file}`
    : "No audit log is configured ([audit] file, or --audit).";
  const tbody = document.querySelector("#audit-table tbody") as HTMLTableSectionElement;
  tbody.replaceChildren(
    ...(body.records ?? []).map((r) => {
      const row = el("tr");
      for (const cell of [r.time, r.tool, r.decision ?? "", r.rule ?? "", r.outcome, r.agent ?? ""])
        row.append(el("td", cell));
      const more = el("details");
      more.append(el("summary", "why"));
      for (const line of detail(r)) more.append(el("p", line));
      const cell = el("td");
      cell.append(more);
      row.append(cell);
      return row;
    }),
  );
}

/** Wires the form: Filter loads; "Live tail" reloads every 2 seconds while checked. */
export function wireAudit(form: HTMLFormElement): void {
  let timer: ReturnType<typeof setInterval> | undefined;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void loadAudit(form);
  });
  const tail = document.getElementById("audit-tail") as HTMLInputElement;
  tail.addEventListener("change", () => {
    clearInterval(timer);
    timer = tail.checked ? setInterval(() => void loadAudit(form), TAIL_MS) : undefined;
  });
  void loadAudit(form);
}
