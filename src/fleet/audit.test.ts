/**
 * Fleet mode's audit stream against a real redis-server this file starts: one chain across concurrent writer
 * processes (`toolgate call --batch`), `toolgate audit verify|tail --follow|export` on it, tampering named by
 * verify, the trim exporting first (or refusing), and records buffered while the server is down.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../core/index.js";
import { auditCli, followAudit, readCalls, seqs } from "../test-support/audit-cli.js";
import { tempWorkspace } from "../test-support/cli.js";
import { useRedis } from "../test-support/redis-server.js";
import { createToolgate } from "../toolgate.js";
import { connectFleet } from "./connect.js";

const server = useRedis();
let projects = 0;

/** A workspace with a file to read and a config outside it naming the fleet (the user's own config). */
async function fleetWorkspace(extra = "") {
  const project = `audit-${++projects}`;
  const ws = await tempWorkspace({ "a.txt": "hi\n" });
  const home = await tempWorkspace({});
  const config = join(home, "config.toml");
  await writeFile(config, `[fleet]\nredis = "${server().url}"\nproject = "${project}"\n${extra}`);
  // In this process where the test is about what a command does; real processes where it is about several.
  const run = auditCli(ws, config, "in-process");
  const spawned = auditCli(ws, config, "process");
  return { project, ws, home, config, run, spawned, stream: `toolgate:{${project}}:audit` };
}

const batch = readCalls;

describe("the audit stream", () => {
  it("keeps one chain across four writer processes, and verify says so", async () => {
    const f = await fleetWorkspace();
    const runs = await Promise.all([1, 2, 3, 4].map(() => f.spawned(["call", "--batch", "-"], batch(15))));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const verified = await f.spawned(["--json", "audit", "verify"]);
    expect(verified.code, verified.stderr).toBe(0);
    const report = JSON.parse(verified.stdout);
    expect(report).toMatchObject({ ok: true, records: 60, first: { seq: 1 }, last: { seq: 60 } });
    const text = await f.run(["audit", "verify"]);
    expect(text.stdout).toContain(`the Redis stream ${f.stream}: 60 record(s), chain intact from #1 to #60`);
  }, 120_000);

  it("names the first broken link: a record edited through a copy, and a fake appended", async () => {
    const f = await fleetWorkspace();
    expect((await f.run(["call", "--batch", "-"], batch(5))).code).toBe(0);
    const raw = await connectFleet({ url: server().url });
    try {
      const entries = (await raw.xRange(f.stream, "-", "+")) ?? [];
      // Streams cannot be edited: copy it with record #3's decision changed, under the same ids.
      await raw.del(f.stream);
      for (const e of entries) {
        const message = { ...e.message };
        if (message.seq === "3")
          message.record = message.record!.replace('"decision":"allow"', '"decision":"deny"');
        await raw.xAdd(f.stream, e.id, message);
      }
      const edited = await f.run(["--json", "audit", "verify"]);
      expect(edited.code).toBe(1);
      const broken = JSON.parse(edited.stdout).broken;
      expect(broken).toMatchObject({
        id: entries[2]!.id,
        seq: 3,
        field: "digest",
        found: entries[2]!.message.digest,
      });
      expect(broken.expected).toMatch(/^sha256:[0-9a-f]{64}$/);
      const said = await f.run(["audit", "verify"]);
      expect(said.stderr).toContain(
        `the chain is broken at record ${entries[2]!.id} (#3): digest expected sha256:`,
      );

      // Put it back, then append a fake after the last record.
      await raw.del(f.stream);
      for (const e of entries) await raw.xAdd(f.stream, e.id, e.message);
      expect((await f.run(["audit", "verify"])).code).toBe(0);
      const last = entries.at(-1)!.message;
      const fake = await raw.xAdd(f.stream, "*", {
        ...last,
        seq: "6",
        prev: last.hash!,
        hash: "f".repeat(40),
      });
      const faked = JSON.parse((await f.run(["--json", "audit", "verify"])).stdout);
      expect(faked.broken).toMatchObject({ id: fake, seq: 6, field: "hash", found: "f".repeat(40) });
    } finally {
      await raw.close();
    }
  }, 120_000);

  it("tail prints the last records, and --follow prints what is appended after it started", async () => {
    const f = await fleetWorkspace();
    expect((await f.run(["call", "--batch", "-"], batch(3))).code).toBe(0);
    const tail = await f.run(["--json", "audit", "tail", "-n", "2"]);
    expect(seqs(tail.stdout)).toEqual([2, 3]);

    const follower = await followAudit(f.ws, f.config, `the Redis stream ${f.stream}`);
    try {
      expect((await f.run(["call", "--batch", "-"], batch(2))).code).toBe(0);
      await expect.poll(() => follower.seqs().length, { timeout: 60_000 }).toBe(2);
      expect(follower.seqs()).toEqual([4, 5]);
    } finally {
      expect(await follower.stop()).toBe(0);
    }
  }, 120_000);

  it("exports JSONL that verifies on its own, and names an edited line", async () => {
    const f = await fleetWorkspace();
    expect((await f.run(["call", "--batch", "-"], batch(4))).code).toBe(0);
    const file = join(f.home, "export.jsonl");
    const exported = await f.run(["audit", "export", file]);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(Object.keys(lines[0]).sort()).toEqual(
      expect.arrayContaining([
        "time",
        "tool",
        "argsDigest",
        "decision",
        "outcome",
        "seq",
        "prev",
        "digest",
        "hash",
      ]),
    );
    expect(JSON.parse((await f.run(["--json", "audit", "verify", file])).stdout)).toMatchObject({
      ok: true,
      records: 4,
    });
    expect((await f.run(["audit", "export", file])).code).toBe(2);
    lines[1].tool = "write_file";
    await writeFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const broken = await f.run(["--json", "audit", "verify", file]);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout).broken).toMatchObject({ id: "line 2", seq: 2, field: "digest" });
  }, 120_000);

  it("trims past audit_max_len only after exporting the trimmed records, and verify anchors on them", async () => {
    const f = await fleetWorkspace('audit_max_len = 4\naudit_archive = "audit-archive.jsonl"\n');
    for (let i = 0; i < 3; i++) expect((await f.run(["call", "--batch", "-"], batch(4))).code).toBe(0);
    const raw = await connectFleet({ url: server().url });
    try {
      expect(await raw.xLen(f.stream)).toBeLessThanOrEqual(4);
    } finally {
      await raw.close();
    }
    const archive = join(f.ws, "audit-archive.jsonl");
    const archived = (await readFile(archive, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(archived.map((r) => r.seq)).toEqual(archived.map((_, i) => i + 1));
    const report = JSON.parse((await f.run(["--json", "audit", "verify"])).stdout);
    expect(report).toMatchObject({ ok: true, first: { seq: archived.length + 1 }, last: { seq: 12 } });
    expect(report.anchor).toMatchObject({
      seq: archived.length,
      hash: archived.at(-1).hash,
      trimmed: { to: archive },
    });
    expect((await f.run(["audit", "verify"])).stdout).toContain(
      `records 1–${archived.length} were trimmed, exported to ${archive}`,
    );
    expect((await f.run(["audit", "verify", archive])).code).toBe(0);
  }, 120_000);

  it("without an archive, refuses appends past audit_max_len: calls are refused once the buffer is full, until export --trim", async () => {
    const f = await fleetWorkspace("audit_max_len = 3\naudit_buffer = 2\n");
    const warnings: string[] = [];
    const gate = await createToolgate({
      roots: [f.ws],
      policy: false,
      builtins: ["read_file"],
      config: f.config,
      logger: { warn: (m) => warnings.push(m) },
    });
    try {
      const call = () => gate.execute({ name: "read_file", args: { path: "a.txt" } });
      for (let i = 0; i < 3; i++) expect((await call()).ok).toBe(true);
      // Two more wait in the buffer (the stream refuses them); the next is refused before it runs.
      expect((await call()).ok).toBe(true);
      expect((await call()).ok).toBe(true);
      const refused = await call();
      expect(refused.error?.message).toContain("read_file was not run: its audit record cannot be kept");
      expect(refused.error?.message).toContain("audit_max_len of 3 records");
      expect(warnings.join("\n")).toContain("toolgate audit export FILE --trim");
      const file = join(f.home, "trimmed.jsonl");
      const trimmed = await f.run(["audit", "export", file, "--trim"]);
      expect(trimmed.code, trimmed.stderr).toBe(0);
      // The two buffered records go out once there is room, in order; calls run again.
      await expect
        .poll(() => gate.auditLog!.tail(10).then((t) => t.map((e) => e.record?.seq)), { timeout: 30_000 })
        .toEqual([4, 5]);
      expect((await call()).ok).toBe(true);
      const report = await verifyChain(gate.auditLog!.entries(), await gate.auditLog!.trimmed());
      expect(report).toMatchObject({ ok: true, first: { seq: 4 }, last: { seq: 6 }, anchor: { seq: 3 } });
      expect((await f.run(["audit", "verify", file])).code).toBe(0);
    } finally {
      await gate.close();
    }
  }, 120_000);
});

describe("the audit stream while Redis is away", () => {
  it("buffers the records of allowed calls and sends them in order once it is back; a full buffer refuses the call", async () => {
    const { startRedis } = await import("../test-support/redis-server.js");
    const own = await startRedis();
    const ws = await tempWorkspace({ "a.txt": "hi\n" });
    const warnings: string[] = [];
    const gate = await createToolgate({
      roots: [ws],
      policy: false,
      builtins: ["read_file", "write_file"],
      config: { fleet: { redis: own.url, project: "away", audit_buffer: 3 } },
      logger: { warn: (m) => warnings.push(m) },
      confirmTimeoutMs: 2_000,
    });
    try {
      const call = () => gate.execute({ name: "read_file", args: { path: "a.txt" } });
      expect((await call()).ok).toBe(true);
      await own.restart(async () => {
        // A call that needs an approval fails closed while the server is away (its record is buffered).
        const asked = await gate.execute({ name: "write_file", args: { path: "b.txt", content: "x" } });
        expect(asked.ok).toBe(false);
        expect(asked.error?.type).toBe("denied_by_policy");
        expect(asked.error?.message).toContain("is unreachable");
        for (let i = 0; i < 2; i++) expect((await call()).ok).toBe(true);
        const refused = await call();
        expect(refused.ok).toBe(false);
        expect(refused.error?.message).toMatch(
          /^read_file was not run: its audit record cannot be kept: 3 records wait for the audit stream toolgate:\{away\}:audit \(.+\) and the buffer holds 3 \(\[fleet\] audit_buffer\)$/,
        );
      });
      // Back: the buffered records go out in order, and the chain holds.
      await expect.poll(() => gate.auditLog!.tail(10).then((t) => t.length), { timeout: 60_000 }).toBe(4);
      const entries = await gate.auditLog!.tail(10);
      expect(entries.map((e) => e.record?.seq)).toEqual([1, 2, 3, 4]);
      expect(entries.map((e) => e.record?.tool)).toEqual([
        "read_file",
        "write_file",
        "read_file",
        "read_file",
      ]);
      expect(entries[1]!.record).toMatchObject({ decision: "ask", outcome: "denied_by_policy" });
      expect(await verifyChain(gate.auditLog!.entries())).toMatchObject({ ok: true, records: 4 });
      expect(warnings.join("\n")).toContain("audit records wait in memory");
    } finally {
      await gate.close();
      await own.close();
    }
  }, 120_000);
});
