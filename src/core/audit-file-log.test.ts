/**
 * The JSONL audit file's chain: four processes appending to one file keep one chain; verify names an edited
 * line; tail, follow and `toolgate audit verify|export|tail` read it back.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditCli, followAudit, readCalls, sampleRecord, seqs } from "../test-support/audit-cli.js";
import { REPO_ROOT, runProcess, tempWorkspace } from "../test-support/cli.js";
import { FileAuditSink } from "./audit.js";
import { GENESIS, verifyChain } from "./audit-chain.js";
import { FileAuditLog } from "./audit-file-log.js";

const record = sampleRecord;

// One writer process: appends N records through the built FileAuditSink.
const WRITER = `
const { FileAuditSink } = await import(${JSON.stringify(join(REPO_ROOT, "dist", "core", "index.js"))});
const [file, n, name] = process.argv.slice(1);
const sink = new FileAuditSink(file, (m) => { console.error(m); process.exitCode = 1; });
for (let i = 0; i < Number(n); i++)
  sink.write({ time: new Date().toISOString(), tool: name, argsDigest: "sha256:" + i, decision: "allow", rule: null, risk: "low", outcome: "ok", durationMs: i });
`;

describe("the audit file's chain", () => {
  it("stays one chain with four processes appending at once", async () => {
    const dir = await tempWorkspace();
    const file = join(dir, "audit.jsonl");
    const runs = await Promise.all(
      ["w1", "w2", "w3", "w4"].map((name) =>
        runProcess(process.execPath, ["--input-type=module", "-e", WRITER, file, "50", name], {
          cwd: dir,
          env: process.env,
        }),
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const report = await verifyChain(new FileAuditLog(file).entries());
    expect(report).toMatchObject({ ok: true, records: 200, first: { seq: 1 }, last: { seq: 200 } });
  }, 120_000);

  it("starts after lines written before the chain, and verify names an edited line", async () => {
    const dir = await tempWorkspace();
    const file = join(dir, "audit.jsonl");
    await writeFile(file, `${JSON.stringify(record)}\n`);
    const sink = new FileAuditSink(file);
    for (let i = 0; i < 3; i++) sink.write({ ...record, durationMs: i });
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[1]).toMatchObject({ seq: 1, prev: GENESIS });
    expect(lines[2].prev).toBe(lines[1].hash);
    expect(await verifyChain(new FileAuditLog(file).entries())).toMatchObject({
      ok: true,
      unchained: 1,
      records: 4,
    });
    lines[2].outcome = "denied_by_policy";
    await writeFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const report = await verifyChain(new FileAuditLog(file).entries());
    expect(report.broken).toMatchObject({ id: "line 3", seq: 2, field: "digest", found: lines[2].digest });
    lines[2].outcome = "ok";
    await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\nnot json\n`);
    expect((await verifyChain(new FileAuditLog(file).entries())).broken).toMatchObject({
      id: "line 5",
      field: "record",
    });
  });

  it("toolgate audit tail|verify|export read [audit] file, and tail --follow sees new lines", async () => {
    const ws = await tempWorkspace({ "a.txt": "hi\n" });
    const config = join(await tempWorkspace(), "config.toml");
    await writeFile(config, '[audit]\nfile = "audit.jsonl"\n');
    const run = auditCli(ws, config);
    const batch = readCalls(3);
    expect((await run(["call", "--batch", "-"], batch)).code).toBe(0);
    const tail = await run(["--json", "audit", "tail", "-n", "2"]);
    expect(seqs(tail.stdout)).toEqual([2, 3]);
    const verified = await run(["audit", "verify"]);
    expect(verified.stdout).toContain(
      `the audit file ${join(ws, "audit.jsonl")}: 3 record(s), chain intact from #1 to #3`,
    );
    const out = join(ws, "export.jsonl");
    expect((await run(["audit", "export", out])).code).toBe(0);
    expect(await readFile(out, "utf8")).toBe(await readFile(join(ws, "audit.jsonl"), "utf8"));
    expect((await run(["audit", "export", join(ws, "x.jsonl"), "--trim"])).code).toBe(2);

    const follower = await followAudit(ws, config, "the audit file");
    try {
      expect((await run(["call", "--batch", "-"], batch)).code).toBe(0);
      await expect.poll(() => follower.seqs().length, { timeout: 60_000 }).toBe(3);
      expect(follower.seqs()).toEqual([4, 5, 6]);
    } finally {
      expect(await follower.stop()).toBe(0);
    }
  }, 180_000);
});
