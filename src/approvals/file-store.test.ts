/**
 * The file approval store in real temp folders: the contract every store passes (each handle its own
 * instance, with fs.watch wake-ups, and again with polling only), answers racing from real child processes,
 * and the folder's own edges (ids that are not ours, file modes, a crash's leftovers, pruning).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAsk, ConfirmationDetails } from "../core/index.js";
import { approvalStoreContract } from "../test-support/approval-store-contract.js";
import { FileApprovalStore } from "./file-store.js";

const run = promisify(execFile);
const DIST_STORE = resolve(dirname(fileURLToPath(import.meta.url)), "../../dist/approvals/file-store.js");

function storage(now: () => number, forcePolling = false) {
  const dir = mkdtempSync(join(tmpdir(), "tg-approvals-"));
  const handles: FileApprovalStore[] = [];
  return {
    dir,
    open: () => {
      const store = new FileApprovalStore({ dir, now, forcePolling, pollMs: 50 });
      handles.push(store);
      return store;
    },
    close: async () => {
      await Promise.all(handles.map((h) => h.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

approvalStoreContract("file (fs.watch)", async (now) => storage(now));
approvalStoreContract("file (polling)", async (now) => storage(now, true));

const details: ConfirmationDetails = {
  toolName: "shell",
  description: "rm -rf build",
  risk: "high",
  locations: [],
  type: "exec",
  command: "rm -rf build",
  sandbox: "workspace-write",
};
const ask = (callId: string): ApprovalAsk => ({ callId, tool: "shell", details, timeoutMs: 600_000 });

describe("FileApprovalStore across processes and on disk", () => {
  let fixture: ReturnType<typeof storage>;
  afterEach(async () => fixture?.close());

  it("lets exactly one of several child processes racing to answer win; the others are told who", async () => {
    fixture = storage(Date.now);
    const store = fixture.open();
    const record = await store.publish(ask("race"));
    const waiting = store.wait(record.id);
    // Each child opens its own store on the folder and answers at once; they start together as far as the
    // OS lets them (each waits for a go file, so no child's start-up cost decides the race).
    const go = join(fixture.dir, "..", `go-${record.id}`);
    const script = `
      import { existsSync } from "node:fs";
      const { FileApprovalStore } = await import(${JSON.stringify(DIST_STORE)});
      const [dir, id, who, go] = process.argv.slice(1);
      while (!existsSync(go)) await new Promise((r) => setTimeout(r, 5));
      const result = await new FileApprovalStore({ dir }).answer(id, { approved: who.endsWith("0"), by: who });
      process.stdout.write(JSON.stringify(result));`;
    const children = Array.from({ length: 6 }, (_, i) =>
      run(process.execPath, ["--input-type=module", "-e", script, fixture.dir, record.id, `child-${i}`, go]),
    );
    writeFileSync(go, "");
    const results = (await Promise.all(children)).map((c) => JSON.parse(c.stdout));
    rmSync(go);
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const final = await store.get(record.id);
    expect(final).toEqual(winners[0].record);
    expect(await waiting).toEqual(final);
    const at = new Date(final?.settled?.at as number).toISOString();
    for (const lost of results.filter((r) => !r.ok)) {
      expect(lost.message).toBe(
        `approval ${record.id} was already ${final?.state} by ${final?.settled?.by} at ${at}`,
      );
    }
  });

  it("treats an id that is not one of its own as unknown, never as a path", async () => {
    fixture = storage(Date.now);
    const store = fixture.open();
    const record = await store.publish(ask("a"));
    for (const id of [
      "../x",
      `${record.id}/../${record.id}`,
      `${record.id}.settled`,
      "",
      record.id.toUpperCase(),
    ]) {
      expect(await store.get(id)).toBeUndefined();
      expect(await store.answer(id, { approved: true, by: "x" })).toEqual({
        ok: false,
        message: `no approval with id ${JSON.stringify(id)}`,
      });
    }
  });

  it("keeps its folder and records private to the user, and leaves no temporary files", async () => {
    fixture = storage(Date.now);
    const store = fixture.open();
    const record = await store.publish(ask("a"));
    await store.answer(record.id, { approved: false, by: "alice", reason: "no" });
    expect(statSync(fixture.dir).mode & 0o777).toBe(0o700);
    const names = readdirSync(fixture.dir).sort();
    expect(names).toEqual([`${record.id}.json`, `${record.id}.settled.json`].sort());
    for (const name of names) expect(statSync(join(fixture.dir, name)).mode & 0o777).toBe(0o600);
  });

  it("ignores a crashed writer's temporary file and prunes settled asks past their keeping time", async () => {
    let now = Date.now();
    fixture = storage(() => now);
    const dir = fixture.dir;
    const store = new FileApprovalStore({ dir, now: () => now, keepSettledMs: 1_000 });
    writeFileSync(join(dir, ".tmp-left-by-a-crash"), "{ half");
    const kept = await store.publish(ask("kept"));
    const old = await store.publish(ask("old"));
    await store.answer(old.id, { approved: true, by: "alice" });
    now += 1_001;
    expect((await store.list()).map((r) => r.callId)).toEqual(["kept"]);
    expect(await store.get(old.id)).toBeUndefined();
    expect((await store.get(kept.id))?.state).toBe("pending");
  });

  it("fails plainly on a record file that is not JSON", async () => {
    fixture = storage(Date.now);
    const store = fixture.open();
    const record = await store.publish(ask("a"));
    writeFileSync(join(fixture.dir, `${record.id}.settled.json`), "not json");
    await expect(store.get(record.id)).rejects.toThrow(/cannot read .*\.settled\.json/);
  });

  it("takes a record's id from its file name, and lists the others past a broken record (red team)", async () => {
    fixture = storage(Date.now);
    const store = fixture.open();
    const real = await store.publish(ask("real"));
    const other = await store.publish(ask("other"));
    // A record whose own id field names another file (or a path outside): it is the record of its file name.
    const forged = { ...real, id: `../../outside-${other.id}` };
    writeFileSync(join(fixture.dir, `${real.id}.json`), JSON.stringify(forged));
    writeFileSync(join(fixture.dir, "00000000-0000-4000-8000-000000000000.json"), "not json");
    expect((await store.list()).map((r) => [r.id, r.callId])).toEqual([
      [real.id, "real"],
      [other.id, "other"],
    ]);
    expect((await store.answer(real.id, { approved: true, by: "alice" })).ok).toBe(true);
    expect((await store.get(other.id))?.state).toBe("pending");
    expect(readdirSync(dirname(fixture.dir)).some((n) => n.startsWith("outside-"))).toBe(false);
  });
});
