/**
 * `toolgate approvals` on the shared approvals folder (`[approvals] route = "console"`, no fleet), with real
 * processes: a waiting `toolgate call` publishes its ask, other `toolgate approvals` processes decide it.
 * The exit codes are the command's contract (src/cli/usage.ts, docs/fleet.md): 0 this decision won; 1 the
 * ask cannot be approved "always" (nothing is decided), already decided, or unknown; 2 bad usage, or a
 * subcommand the store has nothing for (`rules` without a fleet).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FileApprovalStore } from "../../approvals/index.js";
import type { ApprovalRecord } from "../../core/index.js";
import { toolgate } from "../../test-support/cli.js";
import { sharedWorkspace } from "../../test-support/console-browser.js";

const CONFIG = '[approvals]\nroute = "console"\n\n[confirm]\ntimeout_ms = 600000\n';
const stores: FileApprovalStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** `toolgate ARGS` in the workspace, as the user whose config folder is `home` (no terminal). */
const run = (shared: { ws: string; home: string }, args: string[]) =>
  toolgate(args, { cwd: shared.ws, env: { XDG_CONFIG_HOME: shared.home } });
const writeB = ["call", "write_file", JSON.stringify({ path: "b.txt", content: "b\n" })];

async function pendingAsk(store: FileApprovalStore): Promise<ApprovalRecord> {
  await expect.poll(async () => (await store.list({ state: "pending" })).length, { timeout: 60_000 }).toBe(1);
  return (await store.list({ state: "pending" }))[0] as ApprovalRecord;
}

describe("toolgate approvals on the shared folder: exit codes", { timeout: 300_000 }, () => {
  it('refuses "always" (1, nothing decided) for an ask offering no rule; deny wins (0); a second decision is 1', async () => {
    // No policy file: the built-in default has nowhere to add a rule, so the ask says "always" is refused.
    const shared = await sharedWorkspace({ ".toolgate/config.toml": CONFIG });
    stores.push(shared.store);
    const cli = (args: string[]) => run(shared, ["approvals", ...args]);
    const call = run(shared, writeB);
    try {
      const ask = await pendingAsk(shared.store);
      expect(ask.always).toEqual({ refused: expect.stringContaining("no policy file is in force") });

      const always = await cli(["approve", ask.id, "--always", "--by", "alice"]);
      expect(always.stderr).toContain(`approval ${ask.id} cannot be approved "always": no policy file`);
      expect(always.code).toBe(1);
      expect((await shared.store.get(ask.id))?.state).toBe("pending");

      const rules = await cli(["rules"]);
      expect(rules.stderr).toContain("the shared approvals folder keeps no overlay rules");
      expect(rules.code).toBe(2);
      expect((await cli(["approve"])).code).toBe(2);
      const unknown = await cli(["approve", "nope"]);
      expect(unknown.stderr).toContain('no approval with id "nope"');
      expect(unknown.code).toBe(1);

      const denied = await cli(["deny", ask.id, "--reason", "not today", "--by", "bob"]);
      expect(denied.stdout).toBe(`denied ${ask.id} (write_file) as bob\n`);
      expect(denied.code).toBe(0);
      const again = await cli(["approve", ask.id, "--by", "carol"]);
      expect(again.stderr).toContain("already denied by bob");
      expect(again.code).toBe(1);
      const done = await call;
      expect(done.code).toBe(3);
      expect(done.stdout + done.stderr).toContain("not today");
    } finally {
      for (const ask of await shared.store.list({ state: "pending" }))
        await shared.store.answer(ask.id, { approved: false, by: "test cleanup" });
      await call;
    }
  });

  it('approves "always" (0) an ask offering a rule: the asking process writes it and says so', async () => {
    const shared = await sharedWorkspace({
      ".toolgate/config.toml": CONFIG,
      ".toolgate/policy.toml": 'default = "ask"\n',
    });
    stores.push(shared.store);
    const call = run(shared, writeB);
    try {
      const ask = await pendingAsk(shared.store);
      const always = await run(shared, ["approvals", "approve", ask.id, "--always", "--by", "alice"]);
      expect(always.stdout).toBe(
        `approved ${ask.id} (write_file) as alice; the asking process adds the rule it offered to its policy file\n`,
      );
      expect(always.code).toBe(0);
      const done = await call;
      expect(done.stderr).toContain("added the rule to .toolgate/policy.toml");
      expect(done.code).toBe(0);
    } finally {
      for (const ask of await shared.store.list({ state: "pending" }))
        await shared.store.answer(ask.id, { approved: false, by: "test cleanup" });
      await call;
    }
  });
});
