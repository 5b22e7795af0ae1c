/**
 * The Redis approval store against a real redis-server this file starts (Unix socket, AOF on): the contract
 * every store passes, each handle its own connection so racing answers come from different clients, plus the
 * Lua script's own edges and the key layout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAsk } from "../core/index.js";
import { approvalStoreContract } from "../test-support/approval-store-contract.js";
import { startRedis, useRedis } from "../test-support/redis-server.js";
import { RedisApprovalStore } from "./approval-store.js";
import { connectFleet, type FleetClient } from "./connect.js";

const server = useRedis();
let project = 0;

/** Stores over one fresh project namespace; every handle opened is closed by `close`. */
async function storage(now: () => number = Date.now) {
  const name = `contract-${++project}`;
  const open: Promise<RedisApprovalStore>[] = [];
  const handles: RedisApprovalStore[] = [];
  const connect = async () => {
    const store = new RedisApprovalStore({
      client: await connectFleet({ url: server().url }),
      project: name,
      now,
    });
    handles.push(store);
    return store;
  };
  const first = await connect();
  return {
    name,
    first,
    connect,
    open: () => {
      // The contract opens handles synchronously: a handle whose connection is still coming forwards to it.
      const pending = connect();
      open.push(pending);
      return lazyStore(pending);
    },
    close: async () => {
      await Promise.allSettled(open);
      await Promise.all(handles.map((h) => h.close()));
    },
  };
}

/** An ApprovalStore whose methods wait for `store` first. */
function lazyStore(store: Promise<RedisApprovalStore>): RedisApprovalStore {
  return new Proxy({} as RedisApprovalStore, {
    get(_, name: keyof RedisApprovalStore) {
      if (name === "shared") return true;
      if (name === "watch") {
        return (listener: Parameters<RedisApprovalStore["watch"]>[0]) => {
          let stop: (() => void) | undefined;
          let stopped = false;
          store.then((s) => {
            if (!stopped) stop = s.watch(listener);
          });
          return () => {
            stopped = true;
            stop?.();
          };
        };
      }
      // biome-ignore lint/suspicious/noExplicitAny: forwards any method
      return (...args: unknown[]) => store.then((s) => (s[name] as any)(...args));
    },
  });
}

approvalStoreContract("redis", async (now) => {
  const s = await storage(now);
  let first = true;
  return {
    open: () => {
      if (first) {
        first = false;
        return s.first;
      }
      return s.open();
    },
    close: s.close,
  };
});

const ask = (callId: string, timeoutMs = 60_000): ApprovalAsk => ({
  callId,
  tool: "shell",
  details: {
    toolName: "shell",
    description: "make deploy",
    risk: "high",
    locations: [],
    type: "exec",
    command: "make deploy",
    sandbox: "workspace-write: writes only inside /ws, no network",
  },
  timeoutMs,
});

describe("RedisApprovalStore", () => {
  let raw: FleetClient;
  beforeAll(async () => {
    raw = await connectFleet({ url: server().url });
  });
  afterAll(async () => {
    await raw?.close();
  });

  it("is shared, and keeps an ask as a hash under the project's hash tag, indexed and streamed", async () => {
    const s = await storage();
    try {
      expect(s.first.shared).toBe(true);
      const record = await s.first.publish(ask("c1"));
      const key = `toolgate:{${s.name}}:approval:${record.id}`;
      expect(await raw.hGet(key, "state")).toBe("pending");
      expect(JSON.parse((await raw.hGet(key, "base")) as string)).not.toHaveProperty("state");
      expect(await raw.zScore(`toolgate:{${s.name}}:approvals:pending`, record.id)).toBe(record.expiresAt);
      await s.first.answer(record.id, { approved: true, by: "alice", scope: "always" });
      expect(await raw.zScore(`toolgate:{${s.name}}:approvals:pending`, record.id)).toBeNull();
      const stream = await raw.xRange(`toolgate:{${s.name}}:approvals:stream`, "-", "+");
      expect(stream?.map((e) => [e.message.id, e.message.state])).toEqual([
        [record.id, "pending"],
        [record.id, "approved"],
      ]);
      // Each entry carries the event itself (display-safe details only), for notifiers and catch-up.
      expect(stream?.[1]?.message.record).toContain('"command":"make deploy"');
      // A settled record is kept for a while, not forever.
      expect(await raw.pTTL(key)).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it("keeps projects apart: an id of project A is unknown to project B", async () => {
    const a = await storage();
    const b = await storage();
    try {
      const record = await a.first.publish(ask("c1"));
      expect(await b.first.get(record.id)).toBeUndefined();
      expect((await b.first.answer(record.id, { approved: true, by: "mallory" })).ok).toBe(false);
      expect(await b.first.list()).toEqual([]);
      expect((await a.first.get(record.id))?.state).toBe("pending");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("drops from its index asks whose records were removed after their keeping time", async () => {
    const s = await storage();
    try {
      const record = await s.first.publish(ask("c1"));
      await s.first.answer(record.id, { approved: false, by: "alice" });
      await raw.del(`toolgate:{${s.name}}:approval:${record.id}`);
      expect(await s.first.list()).toEqual([]);
      expect(await raw.zCard(`toolgate:{${s.name}}:approvals`)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("fails plainly when the server is gone, never as an approval", async () => {
    const other = await startRedis();
    const store = new RedisApprovalStore({ client: await connectFleet({ url: other.url }), project: "gone" });
    const record = await store.publish(ask("c1"));
    await other.close();
    await expect(store.answer(record.id, { approved: true, by: "alice" })).rejects.toThrow();
    await expect(store.get(record.id)).rejects.toThrow();
    await store.close().catch(() => undefined);
  });
});
