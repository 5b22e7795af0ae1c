/**
 * @module bench/console
 * A console click → the waiting process resumes: an ask published in a file store (the approvals folder),
 * answered by an HTTP POST to a real console on loopback serving the same folder through its own store, until
 * the waiter's `wait` resolves. Anchor: the same ask answered in-process (the in-process store, as a
 * process's own bus answers it). Only the click → resume part is timed; publishing is outside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileApprovalStore } from "../approvals/index.js";
import { CSRF_HEADER, type SessionGrant, startConsole } from "../console/index.js";
import { type ApprovalStore, InProcessApprovalStore } from "../core/index.js";
import { ask, raw, TOKEN } from "../test-support/console.js";
import { fmt, p50p99, report, stats } from "./harness.js";

const ROUNDS = 200;

/** Publishes an ask (untimed), then times `answer` until the waiter resumes. */
async function clickToResume(waiter: ApprovalStore, answer: (id: string) => Promise<void>): Promise<number> {
  const published = await waiter.publish(ask({ callId: "bench" }));
  const t0 = performance.now();
  const waited = waiter.wait(published.id);
  await answer(published.id);
  const settled = await waited;
  if (settled.state !== "approved") throw new Error(`ask ${published.id} ended ${settled.state}`);
  return performance.now() - t0;
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tg-bench-console-"));
  const waiter = new FileApprovalStore({ dir });
  const served = new FileApprovalStore({ dir });
  const running = await startConsole({ store: served, token: TOKEN });
  const local = new InProcessApprovalStore();
  try {
    const host = `127.0.0.1:${running.port}`;
    const origin = `http://${host}`;
    // Signed in as the page is: the session secret as a Bearer header, the CSRF token beside it.
    const login = await raw(running.port, {
      method: "POST",
      path: "/login",
      headers: { host, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TOKEN, name: "bench" }).toString(),
    });
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}: ${login.body}`);
    const grant = JSON.parse(login.body) as SessionGrant;
    const click = async (id: string) => {
      const res = await raw(running.port, {
        method: "POST",
        path: `/api/approvals/${id}`,
        headers: {
          host,
          origin,
          authorization: `Bearer ${grant.session}`,
          [CSRF_HEADER]: grant.csrf,
          "content-type": "application/json",
        },
        body: '{"decision":"approve"}',
      });
      if (res.status !== 200) throw new Error(`the console answered ${res.status}: ${res.body}`);
    };
    const inProcess = async (id: string) => {
      await local.answer(id, { approved: true, by: "bench" });
    };
    const ours: number[] = [];
    const anchor: number[] = [];
    await clickToResume(waiter, click);
    await clickToResume(local, inProcess);
    for (let i = 0; i < ROUNDS; i++) {
      ours.push(await clickToResume(waiter, click));
      anchor.push(await clickToResume(local, inProcess));
    }
    const [o, a] = [stats(ours), stats(anchor)];
    report({
      name: `console click → waiting process resumes (${ROUNDS} rounds, loopback HTTP + file store)`,
      ours: p50p99(o),
      anchor: `answered in-process ${p50p99(a)}`,
      ratio: o.p50 / a.p50,
      target: `p95 ≤ 100 ms (p99 here ${fmt(o.p99)})`,
      pass: o.p99 <= 100,
    });
  } finally {
    await running.close();
    await waiter.close();
    await served.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
