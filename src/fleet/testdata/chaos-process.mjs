// One process of the fleet chaos test (src/test-support/fleet-chaos.ts), run from the built dist/:
//   node chaos-process.mjs worker URL PROJECT NAME LIFECYCLES RUNS_FILE CLAIM_IDLE_MS ASK_TIMEOUT_MS
//   node chaos-process.mjs approver URL PROJECT NAME
// A worker puts LIFECYCLES calls of an always-asked tool through the real pipeline (executeCall) over the
// Redis approval store; the tool appends "callId worker" to RUNS_FILE (one write, O_APPEND) and sleeps a
// little, so a kill can land mid-run. It prints one line per step ("begin callId", "outcome callId ok|denied")
// so the test can kill it at chosen moments. After each call a worker also adds one to a shared memory counter
// (optimistic: a conflict is tried again, printed "counted callId" once written) and, every tenth call, adds
// a todo ("todo callId" once written); a write that fails otherwise is not tried again, so nothing is written
// twice. An approver decides every pending ask it hears of at random:
// approve, deny, or leave it to expire (the calls of CHAOS_LONG are always approved); each win is printed as "won id state". Both keep going across a
// Redis restart (a failed step is printed and the next one tried).
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const dist = new URL("../../../dist/", import.meta.url);
const core = await import(new URL("core/index.js", dist).href);
const stateLib = await import(new URL("state/index.js", dist).href);
const fleet = await import(new URL("fleet/index.js", dist).href);

const [role, url, project, name, ...rest] = process.argv.slice(2);
// CHAOS_LONG="callId:ms,…": calls that run that long (the test kills one mid-run; approvers approve them).
const LONG = new Map(
  (process.env.CHAOS_LONG ?? "")
    .split(",")
    .filter(Boolean)
    .map((pair) => [pair.split(":")[0], Number(pair.split(":")[1])]),
);
const say = (line) => process.stdout.write(`${line}\n`);
const client = await fleet.connectFleet({ url });
client.on("error", () => undefined);
// Loaded: the test starts every process at once and says "go" on stdin when it wants this one to begin.
say("loaded");
await new Promise((resolve) => {
  let input = "";
  process.stdin.on("data", (chunk) => {
    input += chunk;
    if (input.includes("go\n")) resolve();
  });
});

if (role === "worker") {
  const [lifecycles, runsFile, claimIdle, askTimeout] = rest;
  const store = new fleet.RedisApprovalStore({
    client,
    project,
    worker: name,
    claimIdleMs: Number(claimIdle),
    streamLength: 1_000_000,
  });
  store.startClaiming();
  const registry = new core.ToolRegistry();
  registry.register(
    core.defineTool({
      name: "deploy",
      description: "a tool every call of which is asked",
      parameters: { type: "object", properties: { n: { type: "string" } }, required: ["n"] },
      kind: "execute",
      risk: "high",
      run: async ({ n }) => {
        appendFileSync(runsFile, `${n} ${name}\n`);
        say(`ran ${n}`);
        await sleep(LONG.get(n) ?? Math.floor(Math.random() * 60));
        return { llmContent: "deployed", returnDisplay: "deployed" };
      },
    }),
  );
  const deps = {
    registry,
    decider: { decide: async () => ({ decision: "ask", risk: "high", reason: "always asked" }) },
    approvals: store,
    confirmTimeoutMs: Number(askTimeout),
  };
  // The long calls are always approved: give their asks time for a slow approver on a busy machine.
  const longDeps = { ...deps, confirmTimeoutMs: 120_000 };
  const state = fleet.createRedisStateBackend({ client, project, ownsClient: false });
  const memory = stateLib.createMemoryStore(state.memory("project"));
  const todos = stateLib.createTodoStore(state.todos());
  for (let i = 0; i < Number(lifecycles); i++) {
    const callId = `${name}-${i}`;
    say(`call ${callId}`);
    const result = await core.executeCall(LONG.has(callId) ? longDeps : deps, {
      id: callId,
      name: "deploy",
      args: { n: callId },
    });
    say(`outcome ${callId} ${result.ok ? "ok" : "denied"} ${result.ok ? "" : result.llmContent}`.trim());
    if (!result.ok && /approval store failed|could not be recorded/.test(String(result.llmContent)))
      await sleep(100); // the server is away: try the next call a little later
    say(`count ${callId}`);
    for (;;) {
      try {
        const current = await memory.read("counter");
        await memory.set("counter", String(Number(current?.value ?? 0) + 1), {
          ifRevision: current?.revision ?? null,
        });
        say(`counted ${callId}`);
        break;
      } catch (error) {
        if (error?.code !== "conflict") break; // away: this increment may or may not have landed
      }
    }
    if (i % 10 === 0) {
      say(`todo-try ${callId}`);
      await todos.add(callId).then(
        () => say(`todo ${callId}`),
        () => undefined,
      );
    }
  }
  say("done");
  await store.close();
  process.exit(0);
} else {
  const store = new fleet.RedisApprovalStore({ client, project, streamLength: 1_000_000 });
  const seen = new Set();
  const decide = async (id, callId) => {
    // The long calls are always approved (0.5: past the 5 % left to expire, below the 80 % approved).
    const roll = LONG.has(callId) ? 0.5 : Math.random();
    if (roll < 0.05) return; // left to expire
    await sleep(Math.floor(Math.random() * 20));
    const approved = roll < 0.8;
    try {
      const r = await store.answer(id, { approved, by: name });
      if (r.ok) say(`won ${id} ${r.record.state}`);
    } catch {
      // the server is away: another approver (or the expiry) settles it
    }
  };
  store.watch((record) => {
    if (record.state !== "pending" || seen.has(record.id)) return;
    seen.add(record.id);
    void decide(record.id, record.callId);
  });
  // Asks published while this approver was away, or whose wake-up was missed across a restart.
  let ready = false;
  for (;;) {
    try {
      // The pending index only (a full list reads every ask kept, thousands in the long soak).
      for (const id of await client.zRange(fleet.fleetKeys(project).pending, 0, -1)) {
        if (seen.has(id)) continue;
        const record = await store.get(id);
        if (record?.state !== "pending") continue;
        seen.add(id);
        void decide(id, record.callId);
      }
      if (!ready) say("ready");
      ready = true;
    } catch {
      // away; try again
    }
    await sleep(200);
  }
}
