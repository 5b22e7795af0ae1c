/**
 * `[approvals] route = "console"` end to end: a real `toolgate call` with no terminal publishes its ask in
 * the user's shared folder and waits; an answer written there by another process (this test) lets it run or
 * refuses it with the person's reason. An untrusted workspace cannot turn the route on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, sharedWorkspace } from "../test-support/console-browser.js";
import type { FileApprovalStore } from "./file-store.js";

/** `toolgate call write_file` (no TTY, no --yes); resolves when it exits. */
const callWriteFile = (ws: string, home: string) =>
  callTool(ws, home, "write_file", { path: "new.txt", content: "hi\n" });

const CONFIG = '[approvals]\nroute = "console"\n\n[confirm]\ntimeout_ms = 600000\n';

describe('[approvals] route = "console"', () => {
  const stores: FileApprovalStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  async function setUp(trusted: boolean) {
    const shared = await sharedWorkspace({ ".toolgate/config.toml": CONFIG }, trusted);
    stores.push(shared.store);
    return shared;
  }

  async function pendingAsk(store: FileApprovalStore) {
    await expect
      .poll(async () => (await store.list({ state: "pending" })).length, { timeout: 60_000 })
      .toBe(1);
    return (await store.list({ state: "pending" }))[0] as NonNullable<Awaited<ReturnType<typeof store.get>>>;
  }

  it("publishes the ask of a call with no terminal in the shared folder and runs it once approved there", async () => {
    const { ws, home, store } = await setUp(true);
    const calling = callWriteFile(ws, home);
    const ask = await pendingAsk(store);
    expect(ask).toMatchObject({ tool: "write_file", details: { toolName: "write_file" } });
    expect(existsSync(join(ws, "new.txt"))).toBe(false);
    expect((await store.answer(ask.id, { approved: true, by: "alice" })).ok).toBe(true);
    const result = await calling;
    expect(result.code).toBe(0);
    expect(readFileSync(join(ws, "new.txt"), "utf8")).toBe("hi\n");
  });

  it("refuses the call with the reason given where it was denied", async () => {
    const { ws, home, store } = await setUp(true);
    const calling = callWriteFile(ws, home);
    const ask = await pendingAsk(store);
    await store.answer(ask.id, { approved: false, by: "alice", reason: "not on a Friday" });
    const result = await calling;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^toolgate: denied_by_policy: write_file was denied: it was not approved: not on a Friday/,
    );
    expect(existsSync(join(ws, "new.txt"))).toBe(false);
  });

  it("cannot be turned on by an untrusted workspace's config: the ask is refused at once, never published", async () => {
    const { ws, home, store } = await setUp(false);
    const result = await callWriteFile(ws, home);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/it was not approved: no one was available/);
    expect(await store.list()).toEqual([]);
  });
});
