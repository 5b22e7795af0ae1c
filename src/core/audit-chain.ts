/**
 * @module core/audit-chain
 * The audit log's hash chain, defined once for every store (the JSONL file, fleet mode's Redis stream) and for
 * `toolgate audit verify`. A chained record is the call's record plus four fields:
 * - `seq`: its place in the log, 1 for the first record ever;
 * - `digest`: `sha256:` + SHA-256 of the canonical JSON (sorted keys) of the record without the four fields;
 * - `prev`: the previous record's `hash` (forty zeros for the first);
 * - `hash`: SHA-1 hex of `prev + "\n" + seq + "\n" + digest`.
 * The link is SHA-1 because it is the one hash a Redis script can compute (`redis.sha1hex`), and the link must
 * be made inside the script that reads the last hash and appends, or concurrent writers would fork the chain.
 * What a record says is committed by SHA-256; the link's input is that digest, which no writer can choose
 * freely, so SHA-1's chosen-prefix collisions do not apply to it.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../utils/index.js";
import type { AuditRecord } from "./types.js";

/** The `prev` of the first record of a log. */
export const GENESIS = "0".repeat(40);

/** The fields the chain adds to a record. */
export const CHAIN_FIELDS = ["seq", "prev", "digest", "hash"] as const;

/** A record as a chained log keeps it. */
export type ChainedAuditRecord = AuditRecord & { seq: number; prev: string; digest: string; hash: string };

/** The canonical text of a record (what `digest` is taken over): sorted keys, no undefined values. */
export function canonicalRecord(record: object): string {
  return canonicalJson(JSON.parse(JSON.stringify(record)));
}

/** `sha256:` + SHA-256 hex of a record's canonical text. */
export function recordDigest(canonical: string): string {
  return `sha256:${createHash("sha256").update(canonical).digest("hex")}`;
}

/** The link: SHA-1 hex of `prev \n seq \n digest` (the Redis append script computes the same). */
export function linkHash(prev: string, seq: number, digest: string): string {
  return createHash("sha1").update(`${prev}\n${seq}\n${digest}`).digest("hex");
}

/** The record that follows `head` (`undefined`: the log is empty) in the chain. */
export function chainRecord(
  record: AuditRecord,
  head: { seq: number; hash: string } | undefined,
): ChainedAuditRecord {
  const digest = recordDigest(canonicalRecord(record));
  const seq = (head?.seq ?? 0) + 1;
  const prev = head?.hash ?? GENESIS;
  return { ...record, seq, prev, digest, hash: linkHash(prev, seq, digest) };
}

/** A record without its chain fields. */
export function unchained(record: Record<string, unknown>): Record<string, unknown> {
  const { seq: _s, prev: _p, digest: _d, hash: _h, ...body } = record;
  return body;
}

/** One stored record as read back: where it is (`line 12`, a stream id) and what it holds. */
export interface AuditEntry {
  id: string;
  /** The parsed record, chain fields included; `undefined` when the stored text is not a JSON object. */
  record: Record<string, unknown> | undefined;
}

/** Records a log no longer holds, before its first kept one (fleet mode's trim). */
export interface TrimmedRange {
  /** The last trimmed record's `seq` and `hash`: the first kept record must follow them. */
  seq: number;
  hash: string;
  /** Where they were exported to, by whom and when. */
  to?: string;
  by?: string;
  at?: string;
}

/** The first broken link: which record, which field, what the chain expected and what the record holds. */
export interface BrokenLink {
  id: string;
  seq?: number;
  field: "record" | "seq" | "prev" | "digest" | "hash";
  expected: string;
  found: string;
}

/** What `verify` found. */
export interface ChainReport {
  ok: boolean;
  /** Records read. */
  records: number;
  first?: { id: string; seq: number };
  last?: { id: string; seq: number; hash: string };
  /**
   * What the first record follows when it is not the log's first ever: the trimmed range, or — when nothing
   * says what came before — the record's own `prev`, taken on trust as the anchor.
   */
  anchor?: { seq: number; hash: string; trimmed?: TrimmedRange };
  /** Records at the start of a file written before the chain began (no chain fields), not checked. */
  unchained?: number;
  broken?: BrokenLink;
}

const isHash = (v: unknown, length: number) =>
  typeof v === "string" && new RegExp(`^[0-9a-f]{${length}}$`).test(v);

/** The first thing wrong with one record's own fields, given what precedes it. */
function checkEntry(
  entry: AuditEntry,
  expectSeq: number | undefined,
  expectPrev: string | undefined,
): BrokenLink | undefined {
  const r = entry.record;
  const id = entry.id;
  if (!r) return { id, field: "record", expected: "a JSON object", found: "text that does not parse" };
  const seq = r.seq;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1)
    return {
      id,
      field: "seq",
      expected: expectSeq === undefined ? "a number ≥ 1" : String(expectSeq),
      found: String(seq),
    };
  if (!isHash(r.prev, 40))
    return { id, seq, field: "prev", expected: expectPrev ?? "a 40-digit hex hash", found: String(r.prev) };
  const digest = recordDigest(canonicalRecord(unchained(r)));
  if (r.digest !== digest) return { id, seq, field: "digest", expected: digest, found: String(r.digest) };
  const hash = linkHash(r.prev as string, seq, digest);
  if (r.hash !== hash) return { id, seq, field: "hash", expected: hash, found: String(r.hash) };
  if (expectPrev !== undefined && r.prev !== expectPrev)
    return { id, seq, field: "prev", expected: expectPrev, found: r.prev as string };
  if (expectSeq !== undefined && seq !== expectSeq)
    return { id, seq, field: "seq", expected: String(expectSeq), found: String(seq) };
  return undefined;
}

/**
 * Walks a log's records oldest first and reports the first broken link. The first record anchors the walk:
 * `seq` 1 must follow the genesis hash; a later one follows `trimmed` when given, else its own `prev` is
 * the anchor (said in the report). Records without chain fields before the first chained one are counted
 * as written before the chain began.
 * @example const report = await verifyChain(log.entries(), await log.trimmed());
 */
export async function verifyChain(
  entries: AsyncIterable<AuditEntry> | Iterable<AuditEntry>,
  trimmed?: TrimmedRange,
): Promise<ChainReport> {
  const report: ChainReport = { ok: true, records: 0 };
  let last: { seq: number; hash: string } | undefined;
  let unchainedCount = 0;
  for await (const entry of entries) {
    report.records++;
    if (!last && entry.record && !("hash" in entry.record) && !("seq" in entry.record)) {
      unchainedCount++;
      continue;
    }
    let broken: BrokenLink | undefined;
    if (last) broken = checkEntry(entry, last.seq + 1, last.hash);
    else if (trimmed) broken = checkEntry(entry, trimmed.seq + 1, trimmed.hash);
    else {
      broken = checkEntry(entry, undefined, undefined);
      const r = entry.record as Record<string, unknown>;
      if (!broken && r.seq === 1 && r.prev !== GENESIS)
        broken = { id: entry.id, seq: 1, field: "prev", expected: GENESIS, found: r.prev as string };
    }
    if (broken) {
      report.ok = false;
      report.broken = broken;
      break;
    }
    const r = entry.record as unknown as ChainedAuditRecord;
    if (!last) {
      report.first = { id: entry.id, seq: r.seq };
      if (r.seq > 1) report.anchor = { seq: r.seq - 1, hash: r.prev, ...(trimmed ? { trimmed } : {}) };
    }
    last = { seq: r.seq, hash: r.hash };
    report.last = { id: entry.id, seq: r.seq, hash: r.hash };
  }
  if (unchainedCount > 0) report.unchained = unchainedCount;
  return report;
}

/** One line saying what {@link verifyChain} found (the CLI prints it; exit 0 when `ok`, 1 when broken). */
export function describeChain(report: ChainReport, where: string): string {
  const lines: string[] = [];
  if (report.unchained)
    lines.push(
      `${report.unchained} record(s) at the start were written before the chain began (not checked)`,
    );
  if (report.anchor) {
    const t = report.anchor.trimmed;
    const from = t?.to ? `, exported to ${t.to}${t.by ? ` by ${t.by}` : ""}${t.at ? ` at ${t.at}` : ""}` : "";
    lines.push(
      t
        ? `records 1–${report.anchor.seq} were trimmed${from}; the chain is anchored at their last hash ${report.anchor.hash}`
        : `the first record kept is #${report.anchor.seq + 1}; nothing says what came before, so its prev ${report.anchor.hash} is taken as the anchor`,
    );
  }
  if (report.broken) {
    const b = report.broken;
    lines.push(
      `${where}: the chain is broken at record ${b.id}${b.seq === undefined ? "" : ` (#${b.seq})`}: ${b.field} expected ${b.expected}, found ${b.found}`,
    );
  } else if (report.last)
    lines.push(
      `${where}: ${report.records} record(s), chain intact from #${report.first?.seq} to #${report.last.seq} (head ${report.last.hash})`,
    );
  else lines.push(`${where}: no chained records`);
  return lines.join("\n");
}
