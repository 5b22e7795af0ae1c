/**
 * The audit view's pages, read from the end of the log: every record exactly once across the pages, newest
 * first, filtered exactly as the filter says; lines cut by the read blocks (long ones, multi-byte
 * characters) whole; a log growing while it is paged; and the policy's explain trace of a real gate's call,
 * kept in its record with no argument value.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AuditRecord, displaySafeJson } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { scaleRecord, writeScaleLog } from "../test-support/console-scale.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { type AuditFilter, auditMatches } from "./audit-query.js";
import { readAuditPage } from "./audit-read.js";

const N = 3_000;

/** Every page of `filter`, in order: the call ids each page shows. */
async function allPages(file: string, filter: AuditFilter): Promise<string[][]> {
  const pages: string[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await readAuditPage(file, { ...filter, ...(before === undefined ? {} : { before }) });
    pages.push(page.records.map((r) => r.callId as string));
    if (page.next === null) return pages;
    expect(page.records).toHaveLength(filter.limit ?? 100);
    before = page.next;
  }
}

/** The call ids `filter` selects from the scale log of `n` records, newest first. */
function expected(n: number, filter: AuditFilter): string[] {
  const ids: string[] = [];
  for (let i = n - 1; i >= 0; i--) if (auditMatches(scaleRecord(i), filter)) ids.push(`call-${i}`);
  return ids;
}

describe("readAuditPage", () => {
  let gate: Toolgate | undefined;
  afterEach(async () => {
    await gate?.close();
    gate = undefined;
  });

  it.each<[string, AuditFilter]>([
    ["no filter", { limit: 100 }],
    ["one tool, denied", { tool: "shell", decision: "deny", limit: 50 }],
    ["an agent in a time window", { agent: "agent-3", since: Date.parse("2026-11-01T00:10:00Z"), limit: 7 }],
    [
      "a time window alone",
      { since: Date.parse("2026-11-01T00:20:00Z"), until: Date.parse("2026-11-01T00:40:00Z"), limit: 30 },
    ],
    ["nothing", { agent: "nobody" }],
  ])("pages through %s: each matching record once, newest first", async (_, filter) => {
    const file = join(await tempWorkspace(), "audit.jsonl");
    writeScaleLog(file, N);
    const pages = await allPages(file, filter);
    expect(pages.flat()).toEqual(expected(N, filter));
  });

  it("keeps lines whole across read blocks: lines longer than a block, multi-byte characters at the cut", async () => {
    const file = join(await tempWorkspace(), "audit.jsonl");
    const records: AuditRecord[] = [];
    for (let i = 0; i < 24; i++) {
      // Up to 400 KB of agent name in characters of 2, 3 and 4 bytes: blocks (256 KB) cut them anywhere.
      const agent = `${["é", "€", "𝄞"][i % 3]}`.repeat(((i * 7919) % 100_000) + 1);
      records.push({ ...scaleRecord(i), agent });
    }
    writeFileSync(file, `${records.map((r) => displaySafeJson(r)).join("\n")}\n`);
    const pages = await allPages(file, { limit: 3 });
    expect(pages.flat()).toEqual(records.map((r) => r.callId).reverse());
    const one = await readAuditPage(file, { agent: records[17]?.agent as string });
    expect(one.records.map((r) => r.callId)).toEqual(["call-17"]);
  });

  it("neither repeats nor skips a record while the log grows at its end", async () => {
    const file = join(await tempWorkspace(), "audit.jsonl");
    writeScaleLog(file, 1_000);
    const first = await readAuditPage(file, { limit: 100 });
    appendFileSync(file, `${displaySafeJson({ ...scaleRecord(5_000), callId: "newer" })}\n`);
    const second = await readAuditPage(file, { limit: 100, before: first.next as number });
    expect(second.records[0]?.callId).toBe("call-899");
    expect((await readAuditPage(file, { limit: 1 })).records[0]?.callId).toBe("newer");
  });

  it("reads no log as empty, and skips lines that are not records", async () => {
    const ws = await tempWorkspace();
    expect(await readAuditPage(join(ws, "none.jsonl"))).toEqual({ records: [], next: null });
    const file = join(ws, "audit.jsonl");
    writeFileSync(file, `not json\n${displaySafeJson(scaleRecord(1))}\n{"no":"tool"}\n\n`);
    expect((await readAuditPage(file)).records.map((r) => r.callId)).toEqual(["call-1"]);
  });

  it("keeps the policy's explain trace of a real gate's call in its record, and no argument value", async () => {
    const ws = await tempWorkspace({ "notes/a.txt": "secret-token-value-123\n" });
    const policyText = [
      "[[rules]]",
      'tool = "read_file"',
      'decision = "deny"',
      'when.path = { glob = "private/**" }',
      "[[rules]]",
      'tool = "read_file"',
      'decision = "allow"',
      'when.path = { glob = "notes/**" }',
    ].join("\n");
    const file = join(ws, "audit.jsonl");
    gate = await createToolgate({ roots: [ws], policyText, audit: file, trustWorkspace: true });
    const result = await gate.execute({ name: "read_file", args: { path: "notes/a.txt" } });
    expect(result.decision).toBe("allow");
    const [record] = (await readAuditPage(file)).records;
    expect(record?.explain).toEqual([
      "rule inline policy#2 (tool-specific)",
      "  | when.path.glob on a path argument: holds",
      "  | matched: allow",
      "decision allow by rule inline policy#2: the strictest matching tool-specific rule",
    ]);
    const line = readFileSync(file, "utf8");
    expect(line).not.toContain("notes/a.txt");
    expect(line).not.toContain("secret-token-value-123");
  });
});
