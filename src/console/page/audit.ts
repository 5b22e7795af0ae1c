/**
 * @module console/page/audit
 * The audit view: the log's records, newest first, filtered by the form (tool, decision).
 */
import { el } from "./dom.js";
import { request } from "./request.js";

interface AuditRow {
  time: string;
  tool: string;
  decision: string | null;
  rule: string | null;
  outcome: string;
  agent?: string;
}

/** Loads the records the form's filters select into the table. */
export async function loadAudit(form: HTMLFormElement): Promise<void> {
  const query = new URLSearchParams();
  for (const [key, value] of new FormData(form))
    if (typeof value === "string" && value) query.set(key, value);
  const body = await request<{ file: string | null; records: AuditRow[] }>(`/api/audit?${query}`);
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
