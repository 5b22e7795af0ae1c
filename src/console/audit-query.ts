/**
 * @module console/audit-query
 * The audit view's filters, read from the page's query: tool, decision, agent, and a time window (`since`,
 * `until`: ISO times or the page's `datetime-local` values), and the page: how many records (`limit`) and
 * where the page starts (`before`, the cursor the previous page ended with). A value that does not parse
 * is a clear error, never a silently empty or unfiltered view.
 */
import type { AuditRecord } from "../core/index.js";

/** Which audit records the page asks for. */
export interface AuditFilter {
  tool?: string;
  decision?: string;
  agent?: string;
  /** ms since the epoch: records at or after it. */
  since?: number;
  /** ms since the epoch: records at or before it. */
  until?: number;
  /** Most records returned, newest first (default: console/audit-read.ts `AUDIT_PAGE`). */
  limit?: number;
  /** The page's cursor: only records whose line starts before this byte of the log (default: the end). */
  before?: number;
}

/**
 * The filter a query asks for, or the reason it cannot be read.
 * @example auditFilterFrom({ decision: "deny", since: "2026-11-27T10:00" })
 */
export function auditFilterFrom(
  query: Record<string, string | undefined>,
): AuditFilter | { problem: string } {
  const filter: AuditFilter = {};
  for (const key of ["tool", "decision", "agent"] as const) {
    const value = query[key]?.trim();
    if (value) filter[key] = value;
  }
  for (const key of ["since", "until"] as const) {
    const value = query[key]?.trim();
    if (!value) continue;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return { problem: `${key} is not a time: ${JSON.stringify(value.slice(0, 64))}` };
    filter[key] = ms;
  }
  for (const key of ["limit", "before"] as const) {
    const value = query[key]?.trim();
    if (!value) continue;
    if (!/^\d{1,15}$/.test(value) || (key === "limit" && Number(value) === 0))
      return {
        problem: `${key} is not a ${key === "limit" ? "positive whole number" : "cursor"}: ${JSON.stringify(value.slice(0, 64))}`,
      };
    filter[key] = Number(value);
  }
  return filter;
}

/** Whether `record` passes `filter`. */
export function auditMatches(record: AuditRecord, filter: AuditFilter): boolean {
  if (filter.tool && record.tool !== filter.tool) return false;
  if (filter.decision && String(record.decision) !== filter.decision) return false;
  if (filter.agent && record.agent !== filter.agent) return false;
  if (filter.since !== undefined || filter.until !== undefined) {
    const at = Date.parse(record.time);
    if (Number.isNaN(at)) return false;
    if (filter.since !== undefined && at < filter.since) return false;
    if (filter.until !== undefined && at > filter.until) return false;
  }
  return true;
}
