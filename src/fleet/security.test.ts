/**
 * Fleet mode against a real redis-server this file starts with ACL users and no open default user: a client
 * without the user's password is refused; the user and password come from the environment only; each
 * project's user reaches only `toolgate:{PROJECT}:*` keys and channels, so a project's whole life working
 * under that user shows its commands address no other project's keys, and project B's user cannot read
 * project A's; and an approval keeps no raw argument of the call anywhere in Redis (testdata/secret-args.json).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsDigest, defineTool, executeCall, ToolRegistry } from "../core/index.js";
import { createMemoryStore } from "../state/index.js";
import { projectLifecycle } from "../test-support/fleet-lifecycle.js";
import { startRedis, type TestRedis } from "../test-support/redis-server.js";
import { connectFleet } from "./connect.js";
import { fleetKeys } from "./keys.js";
import { type Fleet, openFleet } from "./open.js";
import { resolveFleet } from "./settings.js";
import cases from "./testdata/secret-args.json" with { type: "json" };

/** One ACL user per project: its keys and channels only, no administration. */
const user = (name: string, password: string, project: string) => [
  "--user",
  name,
  "on",
  `>${password}`,
  `~toolgate:{${project}}:*`,
  `&toolgate:{${project}}:*`,
  "+@all",
  "-@admin",
  "-@dangerous",
];

let redis: TestRedis;
const fleets: Fleet[] = [];
beforeAll(async () => {
  redis = await startRedis([
    "--user",
    "default",
    "off",
    ...user("agent-a", "pw-of-a-7f3c", "a"),
    ...user("agent-b", "pw-of-b-91d2", "b"),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.close()));
  await redis?.close();
});

/** A fleet of `project` with the credentials `env` holds (as a worker's environment would). */
async function open(project: string, env: Record<string, string>): Promise<Fleet> {
  const settings = resolveFleet({ redis: redis.url, project, worker: `w-${fleets.length}` }, [], env);
  if (!settings) throw new Error("[fleet] resolved to nothing");
  const fleet = await openFleet(settings, { connectTimeoutMs: 10_000 });
  fleets.push(fleet);
  return fleet;
}
const A = { TOOLGATE_REDIS_USERNAME: "agent-a", TOOLGATE_REDIS_PASSWORD: "pw-of-a-7f3c" };
const B = { TOOLGATE_REDIS_USERNAME: "agent-b", TOOLGATE_REDIS_PASSWORD: "pw-of-b-91d2" };

const details = {
  toolName: "deploy",
  description: "deploy",
  risk: "high" as const,
  locations: [],
  type: "generic" as const,
  sandbox: "not sandboxed",
};

describe("fleet mode with Redis ACL users", { timeout: 120_000 }, () => {
  it("refuses a client without the user's password, or with a wrong one, naming why", async () => {
    const anonymous = await open("a", {});
    await expect(
      anonymous.approvals.publish({ callId: "c", tool: "t", details, timeoutMs: 60_000 }),
    ).rejects.toThrow(/NOAUTH|Authentication required/);
    await expect(createMemoryStore(anonymous.state.memory("project")).get("k")).rejects.toThrow(/NOAUTH/);
    const wrong = await open("a", { ...A, TOOLGATE_REDIS_PASSWORD: "guess" });
    expect(wrong.unreachable).toMatch(/WRONGPASS/);
    await expect(wrong.approvals.list()).rejects.toThrow(/unreachable.*WRONGPASS/);
    await expect(connectFleet({ url: redis.url, username: "agent-a", password: "guess" })).rejects.toThrow(
      /cannot reach Redis at unix:.*WRONGPASS/,
    );
  });

  it("reads the user and password from the environment only: a password in the config file is refused", () => {
    expect(() => resolveFleet({ redis: "redis://agent-a:pw-of-a-7f3c@127.0.0.1:6379" }, ["/w"], {})).toThrow(
      "[fleet] redis holds a password: give it in an environment variable",
    );
    expect(() => resolveFleet({ cluster: ["redis://:pw@127.0.0.1:7000"] }, ["/w"], {})).toThrow(
      "[fleet] cluster holds a password",
    );
    expect(
      resolveFleet(
        { redis: "redis://h:1", passwordEnv: "SHOP_REDIS_PW", usernameEnv: "SHOP_REDIS_USER" },
        ["/w"],
        {
          SHOP_REDIS_PW: "pw",
          SHOP_REDIS_USER: "shop",
        },
      ),
    ).toMatchObject({ url: "redis://h:1", username: "shop", password: "pw" });
    expect(() => resolveFleet({ redis: "redis://h:1", passwordEnv: "NOT_SET" }, ["/w"], {})).toThrow(
      "[fleet] password_env names the variable NOT_SET, which is not set",
    );
  });

  it("runs each project's whole life under a user limited to its own keys and channels", async () => {
    await projectLifecycle(await open("a", A), await open("a", A));
    await projectLifecycle(await open("b", B), await open("b", B));
  });

  it("keeps project A's keys unreadable through project B's user", async () => {
    const a = await open("a", A);
    const ask = await a.approvals.publish({ callId: "a-1", tool: "deploy", details, timeoutMs: 600_000 });
    await createMemoryStore(a.state.memory("project")).set("deploy-key", "A's memory");
    // B's credentials naming project A: every read is refused by the server, nothing of A comes back.
    const intruder = await open("a", B);
    await expect(intruder.approvals.get(ask.id)).rejects.toThrow(/NOPERM/);
    await expect(intruder.approvals.list()).rejects.toThrow(/NOPERM/);
    await expect(intruder.approvals.answer(ask.id, { approved: true, by: "b" })).rejects.toThrow(/NOPERM/);
    await expect(createMemoryStore(intruder.state.memory("project")).get("deploy-key")).rejects.toThrow(
      /NOPERM/,
    );
    await expect(intruder.overlay.list()).rejects.toThrow(/NOPERM/);
    const raw = await connectFleet({ url: redis.url, ...credentials(B) });
    try {
      await expect(raw.hGetAll(fleetKeys("a").approval(ask.id))).rejects.toThrow(/NOPERM/);
      await expect(raw.sendCommand(["SUBSCRIBE", fleetKeys("a").approvalChannel])).rejects.toThrow(/NOPERM/);
    } finally {
      await raw.close();
    }
    expect((await a.approvals.get(ask.id))?.state).toBe("pending");
  });
});

describe("the approval record in Redis", { timeout: 120_000 }, () => {
  for (const c of cases.cases)
    it(`holds no raw argument of the call: ${c.name}`, async () => {
      const project = "a";
      const fleet = await open(project, A);
      const approver = await open(project, A);
      const heard: string[] = [];
      const raw = await connectFleet({ url: redis.url, ...credentials(A) });
      const subscriber = raw.duplicate();
      await subscriber.connect();
      await subscriber.subscribe(fleetKeys(project).approvalChannel, (message: string) =>
        heard.push(message),
      );
      const stop = approver.approvals.watch((record) => {
        if (record.state === "pending" && record.callId === c.name)
          void approver.approvals.answer(record.id, { approved: true, by: "alice", scope: "always" });
      });
      try {
        const registry = new ToolRegistry();
        registry.register(
          defineTool({
            name: "deploy",
            description: "deploys a target",
            parameters: {
              type: "object",
              properties: {
                target: { type: "string" },
                token: { type: "string" },
                key: { type: "string" },
                env: { type: "object", additionalProperties: { type: "string" } },
                headers: { type: "array", items: { type: "string" } },
              },
              required: ["target"],
            },
            kind: "execute",
            risk: "high",
            describe: (p: Record<string, unknown>) => `deploy ${String(p.target)}`,
            run: async () => ({ llmContent: "done", returnDisplay: "done" }),
          }),
        );
        const result = await executeCall(
          {
            registry,
            decider: { decide: async () => ({ decision: "ask", risk: "high", reason: "always asked" }) },
            approvals: fleet.approvals,
            confirmTimeoutMs: 60_000,
          },
          { id: c.name, name: "deploy", args: c.args },
        );
        expect(result.ok).toBe(true);
        const record = (await fleet.approvals.list()).find((r) => r.callId === c.name);
        expect(record?.argsDigest).toBe(argsDigest(c.args));
        expect(record?.run?.state).toBe("finished");
        const stored = await everything(raw, project);
        expect(stored.join("\n")).toContain(record?.id as string);
        expect(heard.join("\n")).toContain(record?.id as string);
        const escaped = JSON.stringify(c.secret).slice(1, -1);
        for (const text of [...stored, ...heard]) {
          expect(text.includes(c.secret), text).toBe(false);
          expect(text.includes(escaped), text).toBe(false);
        }
      } finally {
        stop();
        await subscriber.close();
        await raw.close();
      }
    });
});

function credentials(env: typeof A) {
  return { username: env.TOOLGATE_REDIS_USERNAME, password: env.TOOLGATE_REDIS_PASSWORD };
}

/** Every value of every key of `project`: hash fields, stream entries, strings, set members. */
async function everything(raw: Awaited<ReturnType<typeof connectFleet>>, project: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = (await raw.sendCommand(["SCAN", cursor, "MATCH", `toolgate:{${project}}:*`])) as [
      string,
      string[],
    ];
    cursor = next;
    for (const key of keys) {
      const type = String(await raw.sendCommand(["TYPE", key]));
      if (type === "hash") out.push(...Object.values(await raw.hGetAll(key)));
      else if (type === "string") out.push(String(await raw.get(key)));
      else if (type === "zset") out.push(...(await raw.zRange(key, 0, -1)));
      else if (type === "stream")
        for (const entry of (await raw.xRange(key, "-", "+")) ?? [])
          out.push(...Object.values(entry.message).map(String));
      else throw new Error(`${key}: a ${type} the test does not read`);
    }
  } while (cursor !== "0");
  return out;
}
