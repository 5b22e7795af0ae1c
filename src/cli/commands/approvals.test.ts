/**
 * `toolgate approvals` against a real redis-server this file starts: one `toolgate call` (a real process, no
 * terminal, an `ask`) publishes its ask and waits; `toolgate approvals` in this process lists and decides
 * it; the call goes on (or is refused) by that decision. Two deciders racing, each a real process: exactly
 * one wins, the other is told who decided and when. Every wait is for a state (the ask listed, the process
 * exited). Commands that only read or decide run in this process (toolgateInProcess): a spawn costs ~1.5
 * CPU s in fleet mode, most of it loading the Redis client again.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../../core/index.js";
import { connectFleet, RedisApprovalStore } from "../../fleet/index.js";
import { type RunResult, tempWorkspace, toolgate } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";
import { useRedis } from "../../test-support/redis-server.js";

const server = useRedis();
/** The environment without a fleet of the caller's own. */
const env = { TOOLGATE_REDIS_URL: "" };
let project = 0;

/** A workspace and a user config (given with --config, so trusted) naming the test's server and a fresh project. */
async function fleetWorkspace() {
  const name = `cli-${++project}`;
  const ws = await tempWorkspace({ "a.txt": "hi\n" });
  const config = join(ws, "..", `${name}-${process.pid}.toml`);
  await writeFile(
    config,
    `[fleet]\nredis = "${server().url}"\nproject = "${name}"\nworker = "worker-${name}"\n`,
  );
  const store = new RedisApprovalStore({ client: await connectFleet({ url: server().url }), project: name });
  /** A real `toolgate` process. */
  const cli = (args: string[]) => toolgate(["--config", config, ...args], { cwd: ws, env });
  /** `toolgate` in this process: one command at a time. */
  const run = (args: string[]) => toolgateInProcess(["--config", config, ...args], { cwd: ws, env });
  return { ws, name, config, store, cli, run };
}

/**
 * Runs `toolgate call write_file …` in the background (no terminal: it publishes an ask and waits for the
 * fleet) through `test`; afterwards any ask still pending is denied, so a failed test leaves no call waiting.
 */
async function withWaitingCall(
  test: (fleet: Awaited<ReturnType<typeof fleetWorkspace>>, call: Promise<RunResult>) => Promise<void>,
): Promise<void> {
  const fleet = await fleetWorkspace();
  const call = fleet.cli(["call", "write_file", JSON.stringify({ path: "b.txt", content: "written\n" })]);
  try {
    await test(fleet, call);
  } finally {
    for (const ask of await fleet.store.list({ state: "pending" }))
      await fleet.store.answer(ask.id, { approved: false, by: "test cleanup" });
    await call;
    await fleet.store.close();
  }
}

/** Waits until the project has exactly one pending ask, and returns it. */
async function pendingAsk(store: RedisApprovalStore): Promise<ApprovalRecord> {
  await expect
    .poll(() => store.list({ state: "pending" }), { timeout: 60_000, interval: 100 })
    .toHaveLength(1);
  const [ask] = await store.list({ state: "pending" });
  return ask as ApprovalRecord;
}

// Each test runs several `toolgate` processes one after another on two busy cores.
describe("toolgate approvals", { timeout: 300_000 }, () => {
  it("says that approvals are shared only in fleet mode", async () => {
    const ws = await tempWorkspace();
    const r = await toolgateInProcess(["approvals", "list"], { cwd: ws, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("approvals are shared only in fleet mode");
    const bad = await toolgateInProcess(["approvals", "approve"], { cwd: ws, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("usage: toolgate approvals list");
  });

  it("approves, from another process, the ask a waiting `toolgate call` published; a second decision is told who won", async () => {
    await withWaitingCall(async ({ ws, store, run }, call) => {
      const ask = await pendingAsk(store);
      expect(ask).toMatchObject({ tool: "write_file", worker: expect.stringMatching(/^worker-cli-/) });

      const listed = await run(["approvals", "list"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(`${ask.id}  pending  write_file`);
      expect(listed.stdout).toContain("write_file needs your approval");
      const json = await run(["--json", "approvals", "list"]);
      expect(JSON.parse(json.stdout).map((r: ApprovalRecord) => r.id)).toEqual([ask.id]);

      const approved = await run(["approvals", "approve", ask.id, "--by", "alice"]);
      expect(approved.stderr).toBe("");
      expect(approved.code).toBe(0);
      expect(approved.stdout).toBe(`approved ${ask.id} (write_file) as alice\n`);

      const result = await call;
      expect(result.code).toBe(0);
      expect(existsSync(join(ws, "b.txt"))).toBe(true);

      const again = await run(["--json", "approvals", "deny", ask.id, "--by", "bob"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(new RegExp(`approval ${ask.id} was already approved by alice at \\d{4}-`));
      expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, record: { state: "approved" } });
      const none = await run(["approvals", "list"]);
      expect(none.stdout).toBe("no pending asks\n");
      const all = await run(["approvals", "list", "--all"]);
      expect(all.stdout).toContain(`${ask.id}  approved  write_file`);
    });
  });

  it("denies with a reason the waiting call reports; the call is refused (exit 3) and nothing is written", async () => {
    await withWaitingCall(async ({ ws, store, run }, call) => {
      const ask = await pendingAsk(store);
      const denied = await run(["approvals", "deny", ask.id, "--reason", "not on a Friday", "--by", "carol"]);
      expect(denied.code).toBe(0);
      const result = await call;
      expect(result.code).toBe(3);
      expect(`${result.stdout}${result.stderr}`).toContain("not on a Friday");
      expect(existsSync(join(ws, "b.txt"))).toBe(false);
    });
  });

  it("lets exactly one of two racing deciders win; the waiting call follows the winner", async () => {
    await withWaitingCall(async ({ ws, store, cli }, call) => {
      const ask = await pendingAsk(store);
      const [approve, deny] = await Promise.all([
        cli(["approvals", "approve", ask.id, "--by", "alice"]),
        cli(["approvals", "deny", ask.id, "--by", "bob"]),
      ]);
      expect([approve.code, deny.code].sort()).toEqual([0, 1]);
      const winner = approve.code === 0 ? "alice" : "bob";
      const loser = approve.code === 0 ? deny : approve;
      expect(loser.stderr).toContain(
        `was already ${winner === "alice" ? "approved" : "denied"} by ${winner} at`,
      );
      const result = await call;
      expect(result.code).toBe(winner === "alice" ? 0 : 3);
      expect(existsSync(join(ws, "b.txt"))).toBe(winner === "alice");
      const settled = await store.get(ask.id);
      expect(settled?.settled?.by).toBe(winner);
    });
  });
});
