/** The audit chain's own rules, on records built in memory: each link named when it breaks. */
import { describe, expect, it } from "vitest";
import { chainRecord, GENESIS, linkHash, unchained, verifyChain } from "./audit-chain.js";
import type { AuditRecord } from "./types.js";

const record = (tool: string): AuditRecord =>
  ({ time: "2026-11-27T00:00:00.000Z", tool, argsDigest: "x", decision: "allow", outcome: "ok" }) as never;

function chain(n: number) {
  const out: Record<string, unknown>[] = [];
  let head: { seq: number; hash: string } | undefined;
  for (let i = 0; i < n; i++) {
    const next = chainRecord(record(`t${i}`), head);
    out.push(next as unknown as Record<string, unknown>);
    head = next;
  }
  return out;
}
const entries = (records: Record<string, unknown>[]) =>
  records.map((r, i) => ({ id: `line ${i + 1}`, record: r }));

describe("audit chain", () => {
  it("starts at the genesis and links each record to the one before", async () => {
    const records = chain(3);
    expect(records[0]).toMatchObject({ seq: 1, prev: GENESIS });
    expect(records[1]!.prev).toBe(records[0]!.hash);
    expect(records[2]!.hash).toBe(linkHash(records[1]!.hash as string, 3, records[2]!.digest as string));
    expect(unchained(records[0]!)).toEqual(record("t0"));
    expect(await verifyChain(entries(records))).toMatchObject({ ok: true, records: 3 });
  });

  it.each([
    ["an edited field", (r: Record<string, unknown>[]) => (r[1]!.tool = "other"), "digest"],
    ["a removed record", (r: Record<string, unknown>[]) => r.splice(1, 1), "prev"],
    ["a forged link", (r: Record<string, unknown>[]) => (r[2]!.prev = "f".repeat(40)), "hash"],
    ["text that is no record", (r: Record<string, unknown>[]) => (r[1] = undefined as never), "record"],
  ])("names the first broken link: %s", async (_name, tamper, field) => {
    const records = chain(4);
    tamper(records);
    const report = await verifyChain(entries(records));
    expect(report.ok).toBe(false);
    expect(report.broken?.field).toBe(field);
  });
});
