/**
 * "Approve always" offered by every host through the one publish path: a real `toolgate run` (no terminal,
 * a scripted model server, `[approvals] route = "console"`) publishes its ask with the exact rule, and once
 * the ask is answered "always" in the shared folder the run writes that rule and goes on; a library gate
 * given an offer publishes it with every ask that goes to its shared store, and writes it only when the
 * answer there is "always" — a call's own offer comes first.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../llm/testdata/model-server.js";
import { runToolgate, sharedWorkspace } from "../test-support/console-browser.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import type { FileApprovalStore } from "./file-store.js";

const POLICY = 'default = "ask"\n';
const RULE = '[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { equals = "out.txt" }';

let server: ModelServer;
const stores: FileApprovalStore[] = [];
let gate: Toolgate | undefined;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => server.close());
afterEach(async () => {
  await gate?.close();
  gate = undefined;
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function pendingAsk(store: FileApprovalStore) {
  await expect.poll(async () => (await store.list({ state: "pending" })).length, { timeout: 60_000 }).toBe(1);
  return (await store.list({ state: "pending" }))[0] as NonNullable<Awaited<ReturnType<typeof store.get>>>;
}

describe('"approve always" from every host', () => {
  it("a toolgate run publishes the exact rule, and writes it when the console answers always", async () => {
    const shared = await sharedWorkspace({
      ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n\n[approvals]\nroute = "console"\n\n[confirm]\ntimeout_ms = 600000\n`,
      ".toolgate/policy.toml": POLICY,
    });
    stores.push(shared.store);
    server.push(
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x\n" } }] },
      () => ({
        text: "written",
      }),
    );
    const running = runToolgate(shared.ws, shared.home, [
      "run",
      "write",
      "out.txt",
      "--workspace",
      shared.ws,
    ]);
    const ask = await pendingAsk(shared.store);
    expect(ask.always).toEqual({
      rule: RULE,
      file: ".toolgate/policy.toml",
      matches: 'write_file {"path":"out.txt","content":"x\\n"}',
      notMatches: 'write_file {"path":"out.txt-other","content":"x\\n"}',
    });
    const answered = await shared.store.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    expect(answered.ok).toBe(true);
    const done = await running;
    expect(done.stdout).toBe("written\n");
    expect(done.code).toBe(0);
    expect(done.stderr).toContain("added the rule to .toolgate/policy.toml");
    expect(readFileSync(join(shared.ws, ".toolgate", "policy.toml"), "utf8")).toBe(
      `${POLICY}\n# added by toolgate: "always" for exactly one call\n${RULE}\n`,
    );
    expect(readFileSync(join(shared.ws, "out.txt"), "utf8")).toBe("x\n");
  }, 240_000);

  it("the running session puts the rule in force: the same call later in the run does not ask again", async () => {
    const shared = await sharedWorkspace({
      ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n\n[approvals]\nroute = "console"\n\n[confirm]\ntimeout_ms = 600000\n`,
      ".toolgate/policy.toml": POLICY,
    });
    stores.push(shared.store);
    const write = { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "x\n" } }] };
    server.push(write, write, () => ({ text: "written twice" }));
    const running = runToolgate(shared.ws, shared.home, ["run", "write twice", "--workspace", shared.ws]);
    const ask = await pendingAsk(shared.store);
    // Any second ask means the session did not take the rule up: it is refused at once, so the run ends and
    // the assertions below say what happened instead of the test waiting for its timeout.
    const asked: string[] = [];
    const stop = shared.store.watch((record) => {
      if (record.state !== "pending" || record.id === ask.id || asked.includes(record.id)) return;
      asked.push(record.id);
      void shared.store.answer(record.id, { approved: false, by: "test", reason: "asked again" });
    });
    try {
      // Answered "always" by another process, as a person at another terminal would.
      const approved = await runToolgate(shared.ws, shared.home, [
        "approvals",
        "approve",
        ask.id,
        "--always",
        "--by",
        "alice",
      ]);
      expect(approved.stderr).toBe("");
      expect(approved.code).toBe(0);
      const done = await running;
      expect(asked).toEqual([]);
      expect(done.stderr.match(/added the rule to \.toolgate\/policy\.toml\n/g)).toHaveLength(1);
      expect(done.stdout).toBe("written twice\n");
      expect(done.code).toBe(0);
      expect(await shared.store.list({})).toHaveLength(1);
      // Both calls ran: the model's last request holds two tool results, neither a refusal.
      const results = server.requests.at(-1)?.messages.filter((m) => m.role === "tool") ?? [];
      expect(results).toHaveLength(2);
      for (const result of results) expect(String(result.content)).not.toMatch(/approv|denied/i);
    } finally {
      stop();
    }
  }, 240_000);

  it("a library gate publishes its offer with each shared ask, a call's own first, and writes on always only", async () => {
    const shared = await sharedWorkspace({});
    stores.push(shared.store);
    const written: string[] = [];
    const offer = (rule: string) => async () => ({
      shown: { rule, file: "policy.toml", matches: "m", notMatches: "n" },
      write: async () => {
        written.push(rule);
      },
    });
    gate = await createToolgate({
      roots: [shared.ws],
      policyText: 'default = "ask"\n',
      approvals: shared.store,
      offerAlways: offer("the gate's"),
      trustWorkspace: true,
    });
    const call = { name: "write_file", args: { path: "a.txt", content: "a" } };
    const once = gate.execute(call);
    let ask = await pendingAsk(shared.store);
    expect(ask.always).toMatchObject({ rule: "the gate's" });
    await shared.store.answer(ask.id, { approved: true, by: "alice" });
    expect((await once).ok).toBe(true);
    expect(written).toEqual([]);

    const always = gate.execute({ ...call, args: { path: "b.txt", content: "b" } });
    ask = await pendingAsk(shared.store);
    await shared.store.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    expect((await always).ok).toBe(true);
    expect(written).toEqual(["the gate's"]);

    const own = gate.execute(
      { ...call, args: { path: "c.txt", content: "c" } },
      { offerAlways: offer("the call's") },
    );
    ask = await pendingAsk(shared.store);
    expect(ask.always).toMatchObject({ rule: "the call's" });
    await shared.store.answer(ask.id, { approved: false, by: "alice" });
    expect((await own).ok).toBe(false);
  }, 120_000);
});
