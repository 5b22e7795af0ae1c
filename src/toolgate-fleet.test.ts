/**
 * `[fleet]` wired into createToolgate, against a real redis-server this file starts: asks go to Redis and
 * are answered from another connection, memory lands there, close() ends the connection; an unreachable
 * server refuses asks with the reason while allowed calls still run; an untrusted workspace cannot set it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectFleet, RedisApprovalStore } from "./fleet/index.js";
import { tempWorkspace } from "./test-support/cli.js";
import { useRedis } from "./test-support/redis-server.js";
import { createToolgate } from "./toolgate.js";

const server = useRedis();

function logger() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (m: string) => warnings.push(m) } };
}

/** Connections the server has open (ours included). */
async function connections(): Promise<number> {
  const client = await connectFleet({ url: server().url });
  try {
    return (await client.sendCommand(["CLIENT", "LIST"]))!.toString().trim().split("\n").length - 1;
  } finally {
    await client.close();
  }
}

describe("createToolgate with [fleet]", () => {
  it("publishes an ask no one here can answer, waits for the fleet's answer, and closes its connection", async () => {
    const ws = await tempWorkspace({ "a.txt": "hi\n" });
    const before = await connections();
    const gate = await createToolgate({
      roots: [ws],
      policy: false,
      builtins: ["read_file", "write_file"],
      config: { fleet: { redis: server().url, project: "gate", worker: "w-1" } },
    });
    expect(gate.approvals.shared).toBe(true);
    const console = new RedisApprovalStore({
      client: await connectFleet({ url: server().url }),
      project: "gate",
    });
    try {
      const running = gate.execute({ name: "write_file", args: { path: "b.txt", content: "x\n" } });
      await expect.poll(() => console.list({ state: "pending" }), { timeout: 30_000 }).toHaveLength(1);
      const [ask] = await console.list({ state: "pending" });
      expect(ask).toMatchObject({ tool: "write_file", worker: "w-1" });
      expect((await console.answer(ask!.id, { approved: true, by: "alice" })).ok).toBe(true);
      const result = await running;
      expect(result.ok).toBe(true);

      // State is on the server too: another connection reads what the gate wrote.
      await gate.state.memory("project").put("k", { value: "v", updatedAt: new Date().toISOString() });
      expect(await console.list()).toHaveLength(1);
      const raw = await connectFleet({ url: server().url });
      expect(Object.keys(await raw.hGetAll("toolgate:{gate}:memory:project"))).toEqual(["k"]);
      await raw.close();
    } finally {
      await console.close();
      await gate.close();
    }
    await expect.poll(connections, { timeout: 30_000 }).toBe(before);
  });

  it("refuses calls that need an approval, with the reason, while the server is unreachable; allowed calls run", async () => {
    const ws = await tempWorkspace({ "a.txt": "hi\n" });
    const { warnings, logger: log } = logger();
    const url = `unix://${join(ws, "no-such.sock")}`;
    const gate = await createToolgate({
      roots: [ws],
      policy: false,
      logger: log,
      builtins: ["read_file", "write_file"],
      config: { fleet: { redis: url } },
    });
    try {
      expect(warnings.join("\n")).toContain(`cannot reach Redis at ${url}`);
      const refused = await gate.execute({ name: "write_file", args: { path: "b.txt", content: "x\n" } });
      expect(refused.ok).toBe(false);
      expect(refused.llmContent).toContain(`Redis at ${url} is unreachable`);
      const read = await gate.execute({ name: "read_file", args: { path: "a.txt" } });
      expect(read.ok).toBe(true);
      await expect(gate.state.todos().read()).rejects.toThrow(`Redis at ${url} is unreachable`);
    } finally {
      await gate.close();
    }
  });

  it("is a security key: an untrusted workspace's config cannot route asks to a server", async () => {
    const ws = await tempWorkspace({
      ".toolgate/config.toml": `[fleet]\nredis = "${server().url}"\nproject = "stolen"\n`,
    });
    const { warnings, logger: log } = logger();
    const gate = await createToolgate({ roots: [ws], policy: false, logger: log, trustWorkspace: false });
    try {
      expect(gate.approvals.shared).toBe(false);
      expect(warnings.join("\n")).toMatch(/ignoring .*fleet\.redis/);
    } finally {
      await gate.close();
    }
  });

  it("says which setting is wrong before connecting", async () => {
    const ws = await tempWorkspace();
    await expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: `${env:VAR}` is the config syntax under test
      createToolgate({ roots: [ws], config: { fleet: { redis: "${env:TOOLGATE_TEST_UNSET_VAR}" } } }),
    ).rejects.toThrow("[fleet] redis names the variable TOOLGATE_TEST_UNSET_VAR, which is not set");
  });
});
