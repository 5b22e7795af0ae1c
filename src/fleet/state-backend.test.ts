/**
 * The Redis state backend against a real redis-server this file starts: the same contract suite the file
 * and in-process backends pass (every handle its own connection, so racing writers are different clients),
 * plus the key layout and project isolation.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, createTodoStore, type StateBackend } from "../state/index.js";
import { useRedis } from "../test-support/redis-server.js";
import { stateBackendContract } from "../test-support/state-backend-contract.js";
import { connectFleet } from "./connect.js";
import { createRedisStateBackend } from "./state-backend.js";

const server = useRedis();
let project = 0;

/** A fresh project namespace; `open()` connects a new client each time. */
async function storage() {
  const name = `state-${++project}`;
  // The contract opens handles synchronously: connect a pool first and hand them out in turn.
  const handles: StateBackend[] = await Promise.all(
    Array.from({ length: 10 }, async () =>
      createRedisStateBackend({ client: await connectFleet({ url: server().url }), project: name }),
    ),
  );
  let next = 0;
  return {
    name,
    open: () => handles[next++ % handles.length] as StateBackend,
    close: async () => {
      await Promise.all(handles.map((h) => h.close?.()));
    },
  };
}

stateBackendContract("redis", storage);

describe("the Redis state backend", () => {
  it("keeps memory and todos under the project's hash tag, and projects apart", async () => {
    const a = await storage();
    const b = await storage();
    try {
      const backend = a.open();
      expect(backend.memory("project").path).toBe(`redis:toolgate:{${a.name}}:memory:project`);
      expect(backend.todos().path).toBe(`redis:toolgate:{${a.name}}:todos`);
      await createMemoryStore(backend.memory("project")).set("k", "secret of A");
      await createTodoStore(backend.todos()).add("A's task");
      expect(await createMemoryStore(b.open().memory("project")).get("k")).toBeUndefined();
      expect(await createTodoStore(b.open().todos()).list()).toEqual([]);
      const raw = await connectFleet({ url: server().url });
      try {
        const stored = (await raw.hGet(`toolgate:{${a.name}}:memory:project`, "k")) as string;
        expect(stored).toMatch(/^\d+\n\{/);
        expect(JSON.parse(stored.slice(stored.indexOf("\n") + 1))).toMatchObject({ value: "secret of A" });
      } finally {
        await raw.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
