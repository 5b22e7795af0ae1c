/**
 * @module test-support/fleet-chaos
 * Fleet chaos, at any size: worker processes put always-asked calls through the real pipeline over one Redis
 * and write a shared memory counter and todos; approver processes decide the asks at random (both hear every
 * ask, so they often decide the same one at once). The run kills a worker mid-run, a worker while it waits and
 * an approver, all with SIGKILL, and restarts the redis-server (SIGKILL, AOF with fsync always) mid-run. Then,
 * from Redis and the processes' own lines: no approval lost, no ask decided twice, no tool run without an
 * approval, no call run twice, every run of a killed worker marked `interrupted` (within the claim idle time
 * + 1 s), none left started, no memory or todo update lost. Every step waits for a state (a line printed, a
 * record changed); a process that exits without printing what a step waits for fails the run at once.
 * Used by src/fleet/chaos.test.ts (CI size) and src/fleet/chaos.soak.ts (the issue's size, `npm run soak`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../core/index.js";
import { RedisApprovalStore } from "../fleet/approval-store.js";
import { connectFleet } from "../fleet/connect.js";
import { fleetKeys, RUNS_GROUP } from "../fleet/keys.js";
import { REPO_ROOT } from "./cli.js";
import { useRedis } from "./redis-server.js";

/** How big a chaos run is. */
export interface ChaosSize {
  workers: number;
  lifecycles: number;
  /** The vitest timeout of the run (a hang guard). */
  timeoutMs: number;
  /**
   * Whether the run asserts the bound on reclaiming (claim idle time + 1 s after the kill). A bound
   * in wall-clock time depends on the machine's load, so the CI-sized run reports the figure and the soak
   * run asserts it.
   */
  reclaimBound: boolean;
}

// 2 s: a live worker refreshes its run every 667 ms, so only a process starved for over 1.3 s could be taken
// for dead (at 1 s, a soak at load 30 on two cores once had a live run claimed).
const CLAIM_IDLE_MS = 2_000;
const ASK_TIMEOUT_MS = 1_500;
const SCRIPT = join(REPO_ROOT, "src/fleet/testdata/chaos-process.mjs");
const DEBUG = process.env.CHAOS_DEBUG === "1";

/** A chaos process, its lines so far, and a way to wait for one. */
interface Proc {
  name: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<void>;
  /** Resolves with the first line passing `test`; rejects when the process exits without one. */
  until(test: (line: string) => boolean, what: string): Promise<string>;
  go(): void;
}

function start(procs: Proc[], args: string[], env: Record<string, string> = {}): Proc {
  const name = args[3] as string;
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const waiters = new Set<{ test: (l: string) => boolean; resolve: (l: string) => void }>();
  let gone: Error | undefined;
  const failures = new Set<(error: Error) => void>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    for (const w of [...waiters])
      if (w.test(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
  });
  const exited = new Promise<void>((resolve) =>
    child.once("close", (code, signal) => {
      // `close`: stdout is drained, so every line it printed is in `lines` before waiters are failed.
      gone = new Error(`${name} exited (${code ?? signal}) after: ${lines.slice(-3).join(" | ")}`);
      for (const fail of failures) fail(gone);
      resolve();
    }),
  );
  const proc: Proc = {
    name,
    child,
    lines,
    exited,
    until: (test, what) => {
      const seen = lines.find(test);
      if (seen) return Promise.resolve(seen);
      if (gone) return Promise.reject(new Error(`waiting for ${what}: ${gone.message}`));
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve };
        const fail = (error: Error) => reject(new Error(`waiting for ${what}: ${error.message}`));
        waiters.add(waiter);
        failures.add(fail);
      });
    },
    go: () => child.stdin?.end("go\n"),
  };
  procs.push(proc);
  return proc;
}

/** Polls `read` until it gives a value (a state, never a time). */
async function waitFor<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const field = (line: string, n: number) => line.split(" ")[n] as string;

/** Registers the chaos run of `size`. */
export function fleetChaos(size: ChaosSize): void {
  const { workers: WORKERS, lifecycles: LIFECYCLES } = size;
  const server = useRedis();
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await Promise.all(procs.map((p) => p.exited));
  });

  describe("fleet chaos", { timeout: size.timeoutMs }, () => {
    it(`${WORKERS} workers × ${LIFECYCLES} asks, random approvers, kills and a Redis restart: every invariant holds`, async () => {
      const began = Date.now();
      const step = (what: string) => {
        if (DEBUG) process.stderr.write(`[chaos +${Date.now() - began} ms] ${what}\n`);
      };
      const { url } = server();
      const project = "chaos";
      const keys = fleetKeys(project);
      const dir = await mkdtemp(join(tmpdir(), "toolgate-chaos-"));
      const runsFile = join(dir, "runs.log");
      await writeFile(runsFile, "");
      // The test's own claimer: one more worker of the fleet, claiming what dead workers left.
      const watcher = new RedisApprovalStore({
        client: await connectFleet({ url }),
        project,
        worker: "test-claimer",
        claimIdleMs: CLAIM_IDLE_MS,
        streamLength: 10_000_000,
      });
      watcher.startClaiming();
      const raw = await connectFleet({ url });
      raw.on("error", () => undefined);
      const killed = new Map<string, number>();
      const kill = (p: Proc) => {
        killed.set(p.name, Date.now());
        p.child.kill("SIGKILL");
        return p.exited;
      };
      try {
        // Every process loads at once; each begins when told.
        // w0's fourth call runs long: it is killed there, mid-run. w1's third outlives the claim idle time while
        // its worker lives: it must finish, never be claimed. Approvers always approve these two (they must
        // know them: an approver deciding them at random denied or left one to expire in a run of four, and
        // the run then waited for a call that never ran — the hang once seen at 120 s).
        const long = { CHAOS_LONG: "w0-3:600000,w1-2:4000" };
        const approvers = ["approver-a", "approver-b", "approver-c"].map((name) =>
          start(procs, ["approver", url, project, name], long),
        );
        const workers = Array.from({ length: WORKERS }, (_, i) =>
          start(
            procs,
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
            long,
          ),
        );
        const [a, b, standby] = approvers as [Proc, Proc, Proc];
        const [w0, w1, w2] = workers as [Proc, Proc, Proc];
        await Promise.all(procs.map((p) => p.until((l) => l === "loaded", "loaded")));
        step("all loaded");
        // Workers begin once both approvers listen: an ask nobody hears of would only expire.
        a.go();
        b.go();
        await Promise.all([a, b].map((p) => p.until((l) => l === "ready", "ready")));
        for (const w of workers) w.go();
        step("workers going");

        // A worker killed mid-run: its call is marked interrupted by a claim, within the idle time + 1 s.
        await w0.until((l) => l === "ran w0-3", "w0-3 to run");
        await kill(w0);
        // The id once (a full list reads every ask, thousands in the soak), then that record only.
        const w03 = await idOf("w0-3");
        const interrupted = await waitFor(async () => {
          const r = await watcher.get(w03);
          return r?.run?.state === "interrupted" ? r : undefined;
        });
        const reclaimMs = (interrupted.run?.ended as number) - (killed.get("w0") as number);
        if (size.reclaimBound) expect(reclaimMs).toBeLessThanOrEqual(CLAIM_IDLE_MS + 1_000);
        step(`w0-3 interrupted ${reclaimMs} ms after the kill`);

        // The server restarts (SIGKILL; AOF with fsync always) while calls are asked, decided and run.
        await w2.until((l) => l.startsWith("outcome w2-4 "), "w2-4's outcome");
        await w1.until((l) => l.startsWith("outcome w1-2 "), "w1-2's outcome");
        await server().restart();
        step("redis restarted");

        // A worker killed while it waits for a decision, and an approver killed after some wins.
        const waitingAt = Math.min(LIFECYCLES - 1, 7 + Math.floor(Math.random() * 4));
        await w2.until((l) => l === `call w2-${waitingAt}`, `w2-${waitingAt} to be asked`);
        await kill(w2);
        await a.until((l) => l.startsWith("won "), "approver-a to win one");
        await kill(a);
        standby.go();
        step("w2 and approver-a killed");

        const live = workers.filter((w) => !killed.has(w.name));
        await Promise.all(live.map((w) => w.until((l) => l === "done", "done")));
        step("live workers done");
        for (const p of [b, standby]) await kill(p);

        // Everything pending expires; every run left started by a dead worker is claimed.
        await waitFor(async () => {
          await watcher.expire();
          return (await raw.zCard(keys.pending)) === 0 ? true : undefined;
        });
        await waitFor(async () => {
          const pending = (await raw.sendCommand(["XPENDING", keys.runs, RUNS_GROUP])) as [number];
          return Number(pending[0]) === 0 ? true : undefined;
        });
        const records = await watcher.list();
        const byCall = new Map(records.map((r) => [r.callId, r]));
        expect(records.length).toBeGreaterThan(WORKERS * 5);
        expect(records.filter((r) => r.state === "pending")).toEqual([]);
        expect(records.filter((r) => r.run?.state === "started")).toEqual([]);

        // 0 double decisions: each ask left pending exactly once, in the stream every settlement is written to.
        const entries = (await raw.xRange(keys.approvalStream, "-", "+")) ?? [];
        const settlements = new Map<string, number>();
        for (const e of entries)
          if (e.message.state !== "pending")
            settlements.set(e.message.id as string, (settlements.get(e.message.id as string) ?? 0) + 1);
        const doubles = records.filter((r) => settlements.get(r.id) !== 1);
        expect(doubles.map((r) => `${r.id}: ${settlements.get(r.id)}`)).toEqual([]);

        // 0 lost approvals: every win an approver was told of is the record's state; no id won twice.
        const wins = approvers.flatMap((p) =>
          p.lines.filter((l) => l.startsWith("won ")).map((l) => l.split(" ")),
        );
        expect(new Set(wins.map((w) => w[1])).size).toBe(wins.length);
        const byId = new Map(records.map((r) => [r.id, r]));
        const lost = wins.filter(([, id, state]) => byId.get(id as string)?.state !== state);
        expect(lost).toEqual([]);

        // 0 runs without an approval, 0 re-runs.
        const runs = (await readFile(runsFile, "utf8"))
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split(" ")[0] as string);
        expect(runs.length - new Set(runs).size).toBe(0);
        for (const callId of runs) {
          const r = byCall.get(callId) as ApprovalRecord;
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
            const r = byCall.get(field(line, 1));
            if (field(line, 2) === "ok") expect(r?.run?.state, line).toBe("finished");
            else expect(r?.run?.state === "finished", line).toBe(false);
          }

        // Memory and todo writers lose no update: every increment a worker was told of is counted, and no
        // more than were tried; every todo written is there once, and none that was never tried.
        const lines = workers.flatMap((w) => w.lines);
        const tried = lines.filter((l) => l.startsWith("count ")).length;
        const counted = lines.filter((l) => l.startsWith("counted ")).length;
        const stored = await raw.hGet(keys.memory("project"), "counter");
        const counter = stored ? Number(JSON.parse(stored.slice(stored.indexOf("\n") + 1)).value) : 0;
        expect(counter).toBeGreaterThanOrEqual(counted);
        expect(counter).toBeLessThanOrEqual(tried);
        const todoStored = await raw.get(keys.todos);
        const todoList: { items: { text: string }[] } = todoStored
          ? JSON.parse(todoStored.slice(todoStored.indexOf("\n") + 1))
          : { items: [] };
        const texts = todoList.items.map((t) => t.text);
        expect(texts.length - new Set(texts).size).toBe(0);
        const todoTried = new Set(lines.filter((l) => l.startsWith("todo-try ")).map((l) => field(l, 1)));
        for (const l of lines.filter((x) => x.startsWith("todo "))) expect(texts).toContain(field(l, 1));
        for (const t of texts) expect(todoTried.has(t), t).toBe(true);

        const count = (state: string) => records.filter((r) => r.state === state).length;
        process.stderr.write(
          `[chaos] ${WORKERS} workers × ${LIFECYCLES} in ${((Date.now() - began) / 1000).toFixed(1)} s: ` +
            `${records.length} asks (${count("approved")} approved, ${count("denied")} denied, ` +
            `${count("expired")} expired, ${count("cancelled")} cancelled); ${wins.length} wins, 0 lost, 0 decided twice; ` +
            `${runs.length} runs, 0 without approval, 0 re-run; ` +
            `${records.filter((r) => r.run?.state === "interrupted").length} interrupted (w0-3 reclaimed ${reclaimMs} ms after its kill, limit ${CLAIM_IDLE_MS + 1_000}); ` +
            `counter ${counter} (${counted} acknowledged, ${tried} tried); ${texts.length} todos (${lines.filter((l) => l.startsWith("todo ")).length} acknowledged, ${todoTried.size} tried)\n`,
        );
      } finally {
        if (DEBUG)
          await writeFile(
            join(tmpdir(), `toolgate-chaos-lines-${process.pid}.log`),
            procs.flatMap((p) => p.lines.map((l) => `${p.name} ${l}`)).join("\n"),
          );
        await watcher.close();
        await raw.close();
        await rm(dir, { recursive: true, force: true });
      }

      /** The approval id of call `callId` (the ask's id is made by its worker). */
      async function idOf(callId: string): Promise<string> {
        return waitFor(async () => (await watcher.list()).find((r) => r.callId === callId)?.id);
      }
    });
  });
}
