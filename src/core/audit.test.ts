import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleRecord } from "../test-support/audit-cli.js";
import { canonicalJson } from "../utils/index.js";
import { argsDigest, FileAuditSink } from "./audit.js";

const record = sampleRecord;

describe("audit records", () => {
  it("digests arguments independently of key order, never logging them", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(argsDigest({ b: 1, a: 2 })).toBe(argsDigest({ a: 2, b: 1 }));
    expect(argsDigest({ secret: "hunter2" })).not.toContain("hunter2");
  });

  it("appends one JSON line per record, creating the folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-audit-"));
    const sink = new FileAuditSink(join(dir, "logs", "audit.jsonl"));
    sink.write(record);
    sink.write({ ...record, tool: "grep" });
    const lines = (await readFile(join(dir, "logs", "audit.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).tool)).toEqual(["read_file", "grep"]);
  });

  it("records a tool name a model made up as sent, with nothing hidden in the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-audit-"));
    const sink = new FileAuditSink(join(dir, "audit.jsonl"));
    const tool = "read\u202Eelif_\u200B\x1b[2J";
    sink.write({ ...record, tool });
    const text = await readFile(join(dir, "audit.jsonl"), "utf8");
    expect(text).not.toMatch(/[\u202E\u200B\x1b]/);
    expect(text).toContain('"tool":"read\\u202eelif_\\u200b\\u001b[2J"');
    expect(JSON.parse(text).tool).toBe(tool);
  });

  it("reports a write it cannot make, once per cause, without throwing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-audit-"));
    await writeFile(join(dir, "blocker"), "a file where a folder should be");
    const errors: string[] = [];
    const sink = new FileAuditSink(join(dir, "blocker", "audit.jsonl"), (m) => errors.push(m));
    expect(() => sink.write(record)).not.toThrow();
    sink.write(record);
    expect(errors).toEqual([`cannot write the audit log ${join(dir, "blocker", "audit.jsonl")}: EEXIST`]);
  });
});
