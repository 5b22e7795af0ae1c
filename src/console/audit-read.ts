/**
 * @module console/audit-read
 * One page of the audit log, newest first, read from the end of the file backwards in blocks: a log of
 * 100,000 records is never loaded whole, and the first page of an unfiltered view reads one block. A page
 * ends with a cursor — the byte offset where the oldest line it examined starts — and the next page reads
 * only the lines before it, so paging neither repeats nor skips a record while the log grows at its end.
 * A line is parsed only when it can match: the filter's longest value, as the audit writer encodes it
 * (`displaySafeJson`), is searched for in the raw bytes (a block without it is never decoded), the others
 * must be in the line too, and a time the writer put first must lie in the window.
 */
import { open } from "node:fs/promises";
import { type AuditRecord, displaySafeJson } from "../core/index.js";
import { type AuditFilter, auditMatches } from "./audit-query.js";
import { auditView } from "./views.js";

/** Records in one page unless the query says otherwise, and the most it may ask for. */
export const AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1_000;

/** How many bytes are read at a time, from the end. */
const BLOCK = 256 * 1024;
const NEWLINE = 0x0a;

/** One page: the records, and where the next (older) page starts, or null at the start of the log. */
export interface AuditPage {
  records: AuditRecord[];
  next: number | null;
}

/**
 * The records matching `filter` whose lines start before byte `filter.before` (default: the end), newest
 * first, at most `filter.limit`; a line that is not a record is skipped. A log that does not exist yet is
 * empty.
 * @example await readAuditPage("/ws/.toolgate/audit.jsonl", { decision: "deny", limit: 50 })
 */
export async function readAuditPage(file: string, filter: AuditFilter = {}): Promise<AuditPage> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return { records: [], next: null };
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const limit = Math.min(filter.limit ?? AUDIT_PAGE, MAX_AUDIT_PAGE);
    const needles = needlesOf(filter);
    // The longest needle is searched for in the raw bytes: a block without it is skipped undecoded.
    const longest = needles.reduce((a, b) => (b.length > a.length ? b : a), "");
    const key = longest ? Buffer.from(longest) : undefined;
    const records: AuditRecord[] = [];
    // `end` is where the unread part ends; `carry` holds the bytes of a line cut by the last block read.
    let end = Math.min(filter.before ?? size, size);
    let carry = Buffer.alloc(0);
    while (end > 0 || carry.length > 0) {
      const start = Math.max(0, end - BLOCK);
      const block = Buffer.alloc(end - start);
      if (block.length > 0) await handle.read(block, 0, block.length, start);
      let bytes = carry.length > 0 ? Buffer.concat([block, carry]) : block;
      // Unless at the start of the file, the first line may go on in the block before: keep it for then.
      const cut = start === 0 ? -1 : bytes.indexOf(NEWLINE);
      if (start > 0 && cut === -1) {
        carry = bytes;
        end = start;
        continue;
      }
      carry = start === 0 ? Buffer.alloc(0) : Buffer.from(bytes.subarray(0, cut + 1));
      bytes = bytes.subarray(cut + 1);
      const base = start + (start === 0 ? 0 : cut + 1);
      // Newest first: each step finds the line before `at` (with a needle: the last line holding it).
      let at = bytes.length;
      for (;;) {
        const line = key ? lineWith(bytes, key, at) : lineBefore(bytes, at);
        if (!line) break;
        at = line.start;
        const record = matches(bytes.toString("utf8", line.start, line.end), needles, filter);
        if (record) {
          records.push(auditView(record));
          if (records.length >= limit) return { records, next: base + at > 0 ? base + at : null };
        }
        if (at === 0) break;
      }
      end = start;
    }
    return { records, next: null };
  } finally {
    await handle.close();
  }
}

/** The line that ends at `at` (a line start, or the end), or undefined at the start. */
function lineBefore(bytes: Buffer, at: number): { start: number; end: number } | undefined {
  if (at === 0) return undefined;
  const end = bytes[at - 1] === NEWLINE ? at - 1 : at;
  return { start: end === 0 ? 0 : bytes.lastIndexOf(NEWLINE, end - 1) + 1, end };
}

/** The last line before `at` holding `key` whole, or undefined. */
function lineWith(bytes: Buffer, key: Buffer, at: number): { start: number; end: number } | undefined {
  // A negative offset would count from the end: no room for the key before `at` means no line.
  if (at - key.length < 0) return undefined;
  const hit = bytes.lastIndexOf(key, at - key.length);
  if (hit === -1) return undefined;
  const start = hit === 0 ? 0 : bytes.lastIndexOf(NEWLINE, hit - 1) + 1;
  const end = bytes.indexOf(NEWLINE, hit);
  return { start, end: end === -1 || end > at ? at : end };
}

/** The encoded values a matching line must hold. */
function needlesOf(filter: AuditFilter): string[] {
  return [filter.tool, filter.decision, filter.agent].flatMap((v) => (v ? [displaySafeJson(v)] : []));
}

const TIME_FIRST = '{"time":"';

/** Whether a line the writer began with its time lies outside the filter's window (read without parsing). */
function outsideWindow(line: string, filter: AuditFilter): boolean {
  if ((filter.since === undefined && filter.until === undefined) || !line.startsWith(TIME_FIRST))
    return false;
  const at = Date.parse(line.slice(TIME_FIRST.length, line.indexOf('"', TIME_FIRST.length)));
  if (Number.isNaN(at)) return false;
  return (
    (filter.since !== undefined && at < filter.since) || (filter.until !== undefined && at > filter.until)
  );
}

/** The line's record when it matches the filter; parsed only once every needle is in it. */
function matches(line: string, needles: string[], filter: AuditFilter): AuditRecord | undefined {
  if (line.trim() === "") return undefined;
  for (const needle of needles) if (!line.includes(needle)) return undefined;
  if (outsideWindow(line, filter)) return undefined;
  let record: AuditRecord;
  try {
    record = JSON.parse(line) as AuditRecord;
  } catch {
    return undefined;
  }
  if (typeof record?.tool !== "string") return undefined;
  return auditMatches(record, filter) ? record : undefined;
}
