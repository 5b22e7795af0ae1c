/**
 * A batch answers only the group the page showed (red team F1), over real file stores sharing one folder
 * and the console's real HTTP route: cases in testdata/batch-groups.json. A batch naming no group is refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FileApprovalStore } from "../approvals/index.js";
import { ask, consoleFixture, groupOf, raw } from "../test-support/console.js";
import DATA from "./testdata/batch-groups.json" with { type: "json" };

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;
let fixture: Fixture | undefined;
const stores: FileApprovalStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await fixture?.close();
  fixture = undefined;
});

async function post(body: unknown) {
  const { running, host, origin, signIn } = fixture!;
  const { auth, csrf } = await signIn("alice");
  return raw(running.port, {
    method: "POST",
    path: "/api/approvals/batch",
    headers: { host, origin, ...auth, "x-csrf-token": csrf, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("a batch and its group", () => {
  it.each(DATA.cases.map((c) => [c.note, c] as const))("%s", async (_, c) => {
    fixture = await consoleFixture();
    const ids: string[] = [];
    for (const [i, a] of c.asks.entries()) {
      // Each project's asks come from a store of its own, as each toolgate process has.
      const store = new FileApprovalStore({ dir: fixture.dir, project: a.project });
      stores.push(store);
      const agent = "agent" in a ? { agent: a.agent as string } : {};
      ids.push((await store.publish(ask({ callId: `c${i}`, ...agent }))).id);
    }
    const sent = c.sent.map((i) => ids[i]!);
    const group = await groupOf(fixture.store, ids[c.group]!);
    const res = await post({ ids: sent, group, decision: "approve" });
    const body = JSON.parse(res.body) as { ok: boolean; message?: string };
    if (c.answered) expect(res.status, body.message).toBe(200);
    else {
      expect(res.status).toBe(409);
      expect(body.message).toContain("none was answered");
      expect(body.message).toContain(c.refused);
    }
    for (const [i, id] of ids.entries())
      expect((await fixture.store.get(id))?.state).toBe(
        c.answered && c.sent.includes(i) ? "approved" : "pending",
      );
  });

  it("refuses a batch that names no group, answering nothing", async () => {
    fixture = await consoleFixture();
    const id = (await fixture.store.publish(ask())).id;
    const res = await post({ ids: [id], decision: "approve" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).message).toContain("names its group");
    expect((await fixture.store.get(id))?.state).toBe("pending");
  });

  it("names the asking process and its project on every ask of a shared folder", async () => {
    fixture = await consoleFixture();
    const store = new FileApprovalStore({ dir: fixture.dir, project: "/work/app" });
    stores.push(store);
    const id = (await store.publish(ask())).id;
    const group = await groupOf(fixture.store, id);
    expect(group.project).toBe("/work/app");
    expect(group.process).toMatch(new RegExp(` pid ${process.pid} since \\d{4}-`));
  });
});
