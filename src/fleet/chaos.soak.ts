/**
 * Fleet chaos: worker processes put always-asked calls through the real pipeline over one Redis; approver
 * processes decide them at random (both hear every ask, so they often decide the same one at once). The test
 * kills a worker mid-run (its long call), a worker while it waits, and an approver, all with SIGKILL, and
 * restarts the redis-server (SIGKILL, AOF with fsync always) mid-run. Then, from Redis and the processes'
 * own lines: no approval lost, no ask decided twice, no tool run without an approval, no call run twice,
 * every run of a killed worker marked `interrupted` (within the claim idle time + 1 s), none left started.
 * Every step waits for a state (a line printed, a record changed), never for the clock.
 * Size: 3 workers × 12 calls, 2 approvers (+1 replacing the killed one) in the suite;
 * TOOLGATE_CHAOS_FULL=1 runs the issue's 8 workers × 1,000.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../core/index.js";
import { REPO_ROOT } from "../test-support/cli.js";
import { useRedis } from "../test-support/redis-server.js";
import { RedisApprovalStore } from "./approval-store.js";
import { connectFleet } from "./connect.js";

const FULL = process.env.TOOLGATE_CHAOS_FULL === "1";
const WORKERS = FULL ? 8 : 3;
const LIFECYCLES = FULL ? 1_000 : 12;
const CLAIM_IDLE_MS = 1_000;
const ASK_TIMEOUT_MS = 1_500;
const SCRIPT = join(REPO_ROOT, "src/fleet/testdata/chaos-process.mjs");

const server = useRedis();

/** A chaos process, its lines so far, and a way to wait for one. */
interface Proc {
  name: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<void>;
  until(test: (line: string) => boolean): Promise<string>;
}

const procs: Proc[] = [];
afterAll(() => {
  for (const p of procs)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
});

function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    for (const w of [...waiters])
      if (w.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const proc: Proc = {
    name: args[3] as string,
    child,
    lines,
    exited,
    until: (test) => {
      const seen = lines.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
  procs.push(proc);
  return proc;
}

// A soak test (`npm run soak`, vitest.soak.config.ts), not in the suite, until a hang seen in one run of three is found: the
// test passed at 3 × 20 in 35 s alone, then once failed an approver start-up race (fixed: workers now wait
// for the approvers' "ready") and once timed out at 120 s with the cause not yet known.

describe("fleet chaos", { timeout: FULL ? 3_600_000 : 120_000 }, () => {
  it(`${WORKERS} workers × ${LIFECYCLES} asks, random approvers, kills and a Redis restart: every invariant holds`, async () => {
    const { url } = server();
    const project = "chaos";
    const dir = await mkdtemp(join(tmpdir(), "toolgate-chaos-"));
    const runsFile = join(dir, "runs.log");
    await writeFile(runsFile, "");
    // The test's own claimer: one more worker of the fleet, claiming what dead workers left.
    const watcher = new RedisApprovalStore({
      client: await connectFleet({ url }),
      project,
      worker: "test-claimer",
      claimIdleMs: CLAIM_IDLE_MS,
      streamLength: 1_000_000,
    });
    watcher.startClaiming();
    const killed = new Map<string, number>();
    const kill = (p: Proc) => {
      killed.set(p.name, Date.now());
      p.child.kill("SIGKILL");
      return p.exited;
    };
    try {
      const approvers = [
        start(["approver", url, project, "approver-a"]),
        start(["approver", url, project, "approver-b"]),
      ];
      // Workers start once both approvers listen: an ask nobody hears of would only expire.
      await Promise.all(approvers.map((p) => p.until((l) => l === "ready")));
      const workers = Array.from({ length: WORKERS }, (_, i) =>
        start(
          [
            "worker",
            url,
            project,
            `w${i}`,
            String(LIFECYCLES),
            runsFile,
            String(CLAIM_IDLE_MS),
            String(ASK_TIMEOUT_MS),
          ],
          // w0's fourth call runs long: it is killed there, mid-run. w1's third outlives the claim idle time
          // while its worker lives: it must finish, never be claimed.
          { CHAOS_LONG: "w0-3:600000,w1-2:2500" },
        ),
      );
      const [w0, w1, w2] = workers as [Proc, Proc, Proc];

      // A worker killed mid-run: its call is marked interrupted by a claim, within the idle time + 1 s.
      await w0.until((l) => l === "ran w0-3");
      await kill(w0);
      const interrupted = await waitFor(async () => {
        const r = (await watcher.list()).find((x) => x.callId === "w0-3");
        return r?.run?.state === "interrupted" ? r : undefined;
      });
      expect((interrupted.run?.ended as number) - (killed.get("w0") as number)).toBeLessThanOrEqual(
        CLAIM_IDLE_MS + 1_000,
      );

      // The server restarts (SIGKILL; AOF with fsync always) while calls are asked, decided and run.
      await w2.until((l) => l.startsWith("outcome w2-4 "));
      await w1.until((l) => l.startsWith("outcome w1-2 "));
      await server().restart();

      // A worker killed while it waits for a decision, and an approver killed after some wins.
      const waitingAt = 7 + Math.floor(Math.random() * 4);
      await w2.until((l) => l === `call w2-${waitingAt}`);
      await kill(w2);
      const a = approvers[0] as Proc;
      await a.until((l) => l.startsWith("won "));
      await kill(a);
      approvers.push(start(["approver", url, project, "approver-c"]));

      const live = workers.filter((w) => !killed.has(w.name));
      await Promise.all(live.map((w) => w.until((l) => l === "done")));
      for (const p of approvers) if (!killed.has(p.name)) p.child.kill("SIGKILL");

      // Everything pending expires; every run left started by a dead worker is claimed.
      await waitFor(async () => ((await watcher.list({ state: "pending" })).length === 0 ? true : undefined));
      await waitFor(async () =>
        (await watcher.list()).every((r) => r.run?.state !== "started") ? true : undefined,
      );
      const records = await watcher.list();
      const byCall = new Map(records.map((r) => [r.callId, r]));
      expect(records.length).toBeGreaterThan(WORKERS * 5);

      // 0 double decisions: each ask left pending exactly once, in the stream every settlement is written to.
      const raw = await connectFleet({ url });
      const entries = (await raw.xRange(`toolgate:{${project}}:approvals:stream`, "-", "+")) ?? [];
      await raw.close();
      const settlements = new Map<string, number>();
      for (const e of entries)
        if (e.message.state !== "pending")
          settlements.set(e.message.id as string, (settlements.get(e.message.id as string) ?? 0) + 1);
      for (const r of records) expect(settlements.get(r.id), `settlements of ${r.id}`).toBe(1);

      // 0 lost approvals: every win an approver was told of is the record's state; no id won twice.
      const wins = approvers.flatMap((p) =>
        p.lines.filter((l) => l.startsWith("won ")).map((l) => l.split(" ")),
      );
      expect(new Set(wins.map((w) => w[1])).size).toBe(wins.length);
      for (const [, id, state] of wins) expect(records.find((r) => r.id === id)?.state).toBe(state);

      // 0 runs without an approval, 0 re-runs.
      const runs = (await readFile(runsFile, "utf8"))
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[0]);
      expect(new Set(runs).size).toBe(runs.length);
      for (const callId of runs) {
        const r = byCall.get(callId as string) as ApprovalRecord;
        expect(r?.state, `the run of ${callId}`).toBe("approved");
        expect(r.run?.state).toMatch(/^(finished|interrupted)$/);
      }
      // A finished run is in the runs file. An interrupted one belongs to a killed worker — or never ran: its
      // start was committed but the reply was lost to the restart, so its worker did not run it.
      for (const r of records.filter((x) => x.run)) {
        if (r.run?.state === "finished") expect(runs).toContain(r.callId);
        else expect(killed.has(r.run?.worker as string) || !runs.includes(r.callId)).toBe(true);
      }
      expect(byCall.get("w1-2")?.run?.state).toBe("finished");
      for (const w of workers)
        for (const line of w.lines.filter((l) => l.startsWith("outcome "))) {
          const [, callId, outcome] = line.split(" ");
          const r = byCall.get(callId as string);
          if (outcome === "ok") expect(r?.run?.state).toBe("finished");
          else expect(r?.run?.state === "finished").toBe(false);
        }
    } finally {
      await watcher.close();
    }
  });
});

/** Polls `read` until it gives a value (a state, never a time). */
async function waitFor<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
