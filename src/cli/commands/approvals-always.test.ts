/**
 * `toolgate approvals show|watch|rules` and `approve --always` against a real redis-server this file starts:
 * a waiting `toolgate call` (a real process) is shown, approved "always" from this process, and the
 * same call made again runs without asking — the rule is in the project's overlay, listed and removable;
 * once removed, the call asks again (a real process again). `watch` (a real process) prints each ask as it
 * is published and settled. The commands that only read or decide run in this process (toolgateInProcess):
 * a spawn costs ~1.5 CPU s in fleet mode, most of it loading the Redis client again.
 */
import { spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../../core/index.js";
import { connectFleet, RedisApprovalStore } from "../../fleet/index.js";
import { BIN, tempWorkspace, toolgate } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";
import { useRedis } from "../../test-support/redis-server.js";

const server = useRedis();
const env = { TOOLGATE_REDIS_URL: "" };
const stores: RedisApprovalStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

async function fleetWorkspace(name: string) {
  const ws = await tempWorkspace({ "a.txt": "hi\n" });
  const config = join(ws, "..", `${name}-${process.pid}.toml`);
  await writeFile(config, `[fleet]\nredis = "${server().url}"\nproject = "${name}"\n`);
  const store = new RedisApprovalStore({ client: await connectFleet({ url: server().url }), project: name });
  stores.push(store);
  /** A real `toolgate` process: for the calls that wait for a decision made elsewhere. */
  const cli = (args: string[]) => toolgate(["--config", config, ...args], { cwd: ws, env });
  /** `toolgate` in this process: one command at a time. */
  const run = (args: string[]) => toolgateInProcess(["--config", config, ...args], { cwd: ws, env });
  return { ws, config, store, cli, run };
}

async function pendingAsk(store: RedisApprovalStore): Promise<ApprovalRecord> {
  await expect
    .poll(() => store.list({ state: "pending" }), { timeout: 60_000, interval: 100 })
    .toHaveLength(1);
  return (await store.list({ state: "pending" }))[0] as ApprovalRecord;
}

const write = ["call", "write_file", JSON.stringify({ path: "b.txt", content: "written\n" })];

describe("toolgate approvals show, watch, rules and approve --always", { timeout: 300_000 }, () => {
  it("shows an ask, approves it always; the same call then runs unasked until its rule is removed", async () => {
    const { ws, store, cli, run } = await fleetWorkspace("always-1");
    const first = cli(write);
    const ask = await pendingAsk(store);
    expect(ask.argsDigest).toMatch(/^sha256:/);

    const shown = await run(["approvals", "show", ask.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${ask.id}  pending  write_file`);
    const json = await run(["--json", "approvals", "show", ask.id]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: ask.id, state: "pending", tool: "write_file" });
    const unknown = await run(["approvals", "show", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no approval with id "nope"');

    const approved = await run(["--json", "approvals", "approve", ask.id, "--always", "--by", "alice"]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ ok: true, record: { settled: { scope: "always" } } });
    expect((await first).code).toBe(0);

    const rules = await run(["--json", "approvals", "rules"]);
    expect(JSON.parse(rules.stdout)).toMatchObject({
      version: 1,
      rules: [{ id: ask.id, tool: "write_file", argsDigest: ask.argsDigest, by: "alice" }],
    });
    // The same call again (its file removed, so the write is new): allowed by the overlay, no ask published.
    await rm(join(ws, "b.txt"));
    const again = await run(write);
    expect(again.code).toBe(0);
    expect(await store.list()).toHaveLength(1);

    expect((await run(["approvals", "rules", "--remove", ask.id])).code).toBe(0);
    const gone = await run(["--json", "approvals", "rules", "--remove", ask.id]);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toEqual({ ok: false, id: ask.id });
    expect((await run(["approvals", "rules"])).stdout).toBe("no overlay rules (version 2)\n");

    // Removed: the call asks again.
    await rm(join(ws, "b.txt"));
    const third = cli(write);
    const asked = await pendingAsk(store);
    expect(asked.id).not.toBe(ask.id);
    await store.answer(asked.id, { approved: false, by: "test" });
    expect((await third).code).toBe(3);
  });

  it("refuses --always for an ask with no argument digest, deciding nothing", async () => {
    const { store, run } = await fleetWorkspace("always-2");
    const ask = await store.publish({
      callId: "c1",
      tool: "shell",
      details: {
        toolName: "shell",
        description: "x",
        risk: "high",
        locations: [],
        type: "exec",
        sandbox: "s",
      },
      timeoutMs: 60_000,
    });
    const r = await run(["approvals", "approve", ask.id, "--always"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot be approved "always"');
    expect((await store.get(ask.id))?.state).toBe("pending");
    const bad = await run(["approvals", "deny", ask.id, "--always"]);
    expect(bad.code).toBe(2);
  });

  it("watch prints each ask published and settled, as JSON lines, until SIGTERM (exit 0)", async () => {
    const { ws, config, store } = await fleetWorkspace("watch-1");
    const child = spawn(process.execPath, [BIN, "--config", config, "--json", "approvals", "watch"], {
      cwd: ws,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: ApprovalRecord[] = [];
    createInterface({ input: child.stdout }).on("line", (l) => lines.push(JSON.parse(l)));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // Published until watch has seen one: its subscription may come after the first publish.
    const asks: ApprovalRecord[] = [];
    await expect
      .poll(
        async () => {
          if (lines.length === 0)
            asks.push(
              await store.publish({
                callId: `c${asks.length}`,
                tool: "shell",
                details: {
                  toolName: "shell",
                  description: "x",
                  risk: "high",
                  locations: [],
                  type: "exec",
                  sandbox: "s",
                },
                timeoutMs: 60_000,
              }),
            );
          return lines.length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    const last = asks.at(-1) as ApprovalRecord;
    await store.answer(last.id, { approved: false, by: "bob" });
    await expect
      .poll(() => lines.some((r) => r.id === last.id && r.state === "denied"), { timeout: 60_000 })
      .toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
