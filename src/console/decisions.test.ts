/**
 * The console's answers over a real file store and its HTTP routes: "always" only where the asking process
 * offered a rule (refused with the offer's reason otherwise, a deny's included); a batch approves or denies
 * every ask, or — when any was decided meanwhile — none, naming who decided it.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runProcess } from "../test-support/cli.js";
import { ask, consoleFixture, groupOf, raw } from "../test-support/console.js";
import { ConsoleDecisions } from "./decisions.js";

const RULE = {
  rule: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "rm -rf build" }',
  file: ".toolgate/policy.toml",
  matches: 'shell {"command":"rm -rf build"}',
  notMatches: 'shell {"command":"rm -rf build-other"}',
};
const DENIED = {
  refused: 'the policy denies this call (rule policy.toml#1 (line 4)), and "always" never overrides a deny',
};

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;
let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function setUp() {
  fixture = await consoleFixture();
  return { ...fixture, decisions: new ConsoleDecisions(fixture.store) };
}

describe("answering always", () => {
  it("records an always approval where the ask offers a rule", async () => {
    const { store, decisions } = await setUp();
    const record = await store.publish(ask({ always: RULE }));
    const reply = await decisions.one(record.id, "always", "alice", "");
    expect(reply.status).toBe(200);
    expect((await store.get(record.id))?.settled).toMatchObject({ by: "alice", scope: "always" });
  });

  it.each([
    ["a deny shadows the rule", DENIED, `"always" is refused for this call: ${DENIED.refused}`],
    [
      "the asking process offers none",
      undefined,
      '"always" is not offered for this call: the process that asked offers no rule',
    ],
    [
      "the offer is malformed",
      { rule: 5 },
      `"always" is refused for this call: the asking process's offer of a rule is not readable`,
    ],
  ])("refuses always when %s, and the ask stays pending", async (_, always, message) => {
    const { store, decisions } = await setUp();
    const record = await store.publish(ask(always === undefined ? {} : { always: always as never }));
    expect(await decisions.one(record.id, "always", "alice", "")).toEqual({
      status: 409,
      body: { ok: false, message },
    });
    expect((await store.get(record.id))?.state).toBe("pending");
  });

  it("refuses always over HTTP with the reason", async () => {
    const { store, running, host, origin, signIn } = await setUp();
    const record = await store.publish(ask({ always: DENIED }));
    const { auth, csrf } = await signIn();
    const res = await raw(running.port, {
      method: "POST",
      path: `/api/approvals/${record.id}`,
      headers: { host, origin, ...auth, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ decision: "always" }),
    });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).message).toContain('"always" never overrides a deny');
  });
});

describe("answering a batch", () => {
  it("approves every ask of the batch", async () => {
    const { store, decisions } = await setUp();
    const ids = [];
    for (const callId of ["a", "b", "c"]) ids.push((await store.publish(ask({ callId }))).id);
    const reply = await decisions.batch(ids, "approve", "alice", "");
    expect(reply.status).toBe(200);
    for (const id of ids) expect((await store.get(id))?.state).toBe("approved");
  });

  it("changes none when one was already decided, and says which and by whom", async () => {
    const { store, decisions } = await setUp();
    const ids = [];
    for (const callId of ["a", "b", "c"]) ids.push((await store.publish(ask({ callId }))).id);
    await store.answer(ids[1] as string, { approved: false, by: "bob", reason: "no" });
    const reply = await decisions.batch(ids, "approve", "alice", "");
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({
      ok: false,
      message: "none was answered: 1 of 3 already decided",
      decided: [expect.stringMatching(new RegExp(`^approval ${ids[1]} was already denied by bob at `))],
    });
    expect((await store.get(ids[0] as string))?.state).toBe("pending");
    expect((await store.get(ids[2] as string))?.state).toBe("pending");
  });

  it("refuses an unknown id and an empty batch, changing nothing", async () => {
    const { store, decisions } = await setUp();
    const known = (await store.publish(ask())).id;
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await decisions.batch([known, unknown], "deny", "alice", "")).body).toMatchObject({
      ok: false,
      decided: [`no approval with id "${unknown}"`],
    });
    expect((await decisions.batch([], "deny", "alice", "")).status).toBe(400);
    expect((await store.get(known))?.state).toBe("pending");
  });

  it("denies a batch over HTTP with the reason the model sees", async () => {
    const { store, running, host, origin, signIn } = await setUp();
    const ids = [
      (await store.publish(ask({ callId: "a" }))).id,
      (await store.publish(ask({ callId: "b" }))).id,
    ];
    const group = await groupOf(store, ids[0]!);
    const { auth, csrf } = await signIn("carol");
    const res = await raw(running.port, {
      method: "POST",
      path: "/api/approvals/batch",
      headers: { host, origin, ...auth, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ ids, group, decision: "deny", reason: "one at a time" }),
    });
    expect(res.status).toBe(200);
    for (const id of ids)
      expect((await store.get(id))?.settled).toMatchObject({ by: "carol", reason: "one at a time" });
  });
});

describe("a batch racing another process's answer", () => {
  it("ends all answered, none answered, or naming exactly the asks the other process decided", async () => {
    const { store, dir, decisions } = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await store.publish(ask({ callId: `race-${i}` }))).id);
    // Another process (a terminal answering in its own toolgate) denies five of the asks, at the same time.
    const theirs = ids.filter((_, i) => i % 8 === 3);
    const script = [
      `import { FileApprovalStore } from ${JSON.stringify(join(REPO_ROOT, "dist", "approvals", "index.js"))};`,
      `const store = new FileApprovalStore({ dir: ${JSON.stringify(dir)} });`,
      `for (const id of ${JSON.stringify(theirs)}) await store.answer(id, { approved: false, by: "terminal" });`,
    ].join("\n");
    const other = runProcess(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dir,
      env: process.env,
    });
    const reply = await decisions.batch(ids, "approve", "alice", "");
    expect((await other).code).toBe(0);
    const settled = await Promise.all(ids.map((id) => store.get(id)));
    const byTerminal = settled.filter((r) => r?.settled?.by === "terminal").map((r) => r?.id);
    if (reply.status === 200) {
      // The batch came first everywhere: the other process lost each of its answers.
      expect(byTerminal).toEqual([]);
      expect(settled.every((r) => r?.state === "approved")).toBe(true);
    } else if (reply.body.message.startsWith("none was answered")) {
      // The other process came first on some: the batch changed nothing.
      expect(settled.filter((r) => r?.settled?.by === "alice")).toEqual([]);
    } else {
      // The documented window: the reply names each ask decided elsewhere, no more and no fewer.
      expect(reply.body.message).toMatch(
        /^\d+ of 40 were answered; \d+ decided elsewhere at the same moment$/,
      );
      expect(reply.body.decided).toHaveLength(byTerminal.length);
      for (const id of byTerminal) expect(reply.body.decided?.join("\n")).toContain(id as string);
      expect(settled.filter((r) => r?.settled?.by === "alice")).toHaveLength(40 - byTerminal.length);
    }
  }, 120_000);
});
