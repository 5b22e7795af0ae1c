/**
 * @module console/audit-read
 * One page of the audit log, newest first, read from the end of the file backwards in blocks: a log of
 * 100,000 records is never loaded whole, and the first page of an unfiltered view reads one block. A page
 * ends with a cursor — the byte offset where the oldest line it examined starts — and the next page reads
 * only the lines before it, so paging neither repeats nor skips a record while the log grows at its end.
 * A line is parsed only when it can match: the filter's exact values must appear in it as the audit writer
 * encodes them (`displaySafeJson`), a cheap test that lets a selective filter skip most lines unparsed.
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
      const lines = bytes.toString("utf8").split("\n");
      // Walk the whole lines newest first; `offset` is the byte where the line at index i starts.
      let offset = base + bytes.length;
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i] as string;
        offset -= Buffer.byteLength(line) + (i === lines.length - 1 ? 0 : 1);
        const record = line.trim() && matches(line, needles, filter);
        if (record) {
          records.push(auditView(record));
          if (records.length >= limit) return { records, next: offset > 0 ? offset : null };
        }
      }
      end = start;
    }
    return { records, next: null };
  } finally {
    await handle.close();
  }
}

/** The encoded values a matching line must hold. */
function needlesOf(filter: AuditFilter): string[] {
  return [filter.tool, filter.decision, filter.agent].flatMap((v) => (v ? [displaySafeJson(v)] : []));
}

/** The line's record when it matches the filter; parsed only once every needle is in it. */
function matches(line: string, needles: string[], filter: AuditFilter): AuditRecord | undefined {
  for (const needle of needles) if (!line.includes(needle)) return undefined;
  let record: AuditRecord;
  try {
    record = JSON.parse(line) as AuditRecord;
  } catch {
    return undefined;
  }
  if (typeof record?.tool !== "string") return undefined;
  return auditMatches(record, filter) ? record : undefined;
}
