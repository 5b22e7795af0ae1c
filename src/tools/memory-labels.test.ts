/**
 * Memory keeps the label a value was written with (docs/injection.md), in the file backend and the Redis
 * one: a value written after untrusted content reads back untrusted in a later session; one written from a
 * clean context reads back trusted; an entry stored without a label (before labels, or edited by hand)
 * reads back untrusted and private. A write to the user-level store after untrusted content is `ask`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Confirm, FlowSession, type Label } from "../core/index.js";
import { connectFleet, createRedisStateBackend } from "../fleet/index.js";
import { createFileStateBackend, createMemoryStore, type StateBackend } from "../state/index.js";
import { useRedis } from "../test-support/redis-server.js";
import { createToolgate } from "../toolgate.js";

const redis = useRedis();
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "toolgate-memory-labels-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const FETCHED: Label = {
  integrity: "untrusted",
  confidentiality: "public",
  sources: [{ tool: "web_fetch", integrity: "untrusted", confidentiality: "public", what: "evil.example" }],
};

let n = 0;
const backends: [string, () => Promise<{ state: StateBackend; close: () => Promise<void> }>][] = [
  [
    "file",
    async () => {
      const dir = join(root, `ws-${++n}`);
      return {
        state: createFileStateBackend({ root: dir, userDir: join(dir, "user") }),
        close: async () => undefined,
      };
    },
  ],
  [
    "redis",
    async () => {
      const client = await connectFleet({ url: redis().url });
      const state = createRedisStateBackend({ client, project: `labels-${++n}` });
      return { state, close: async () => state.close?.() };
    },
  ],
];

describe.each(backends)("memory labels (%s backend)", (_name, open) => {
  async function gateOver(state: StateBackend) {
    return createToolgate({
      roots: [root],
      cwd: root,
      policyText: 'default = "allow"\n',
      state,
      hooks: false,
      logger: { warn: () => undefined },
    });
  }

  it("reads back the label a value was written with, in a later session", async () => {
    const { state, close } = await open();
    const gate = await gateOver(state);
    try {
      const earlier = FlowSession.from({ label: FETCHED });
      const set = (key: string, session?: FlowSession) =>
        gate.execute(
          { name: "memory", args: { action: "set", key, value: `note ${key}` } },
          session ? { session } : {},
        );
      expect((await set("poisoned", earlier)).ok).toBe(true);
      expect((await set("clean", new FlowSession())).ok).toBe(true);
      expect((await set("by-hand")).ok).toBe(true);
      // An entry without a label: written before labels were stored.
      await createMemoryStore(state.memory("project")).set("old", "note old");

      const later = new FlowSession();
      const get = (key: string) =>
        gate.execute({ name: "memory", args: { action: "get", key } }, { session: later });
      const poisoned = await get("poisoned");
      expect(poisoned.label).toMatchObject({ integrity: "untrusted", confidentiality: "public" });
      expect(poisoned.data).toMatchObject({ label: { sources: ["web_fetch"] } });
      expect((await get("clean")).label).toMatchObject({ integrity: "trusted", confidentiality: "public" });
      expect((await get("by-hand")).label).toMatchObject({ integrity: "trusted" });
      expect((await get("old")).label).toMatchObject({ integrity: "untrusted", confidentiality: "private" });
      expect(later.label.integrity).toBe("untrusted");

      // A listing is labelled by every entry it names.
      const fresh = new FlowSession();
      const list = await gate.execute({ name: "memory", args: { action: "list" } }, { session: fresh });
      expect(list.label).toMatchObject({ integrity: "untrusted", confidentiality: "private" });
      // A write's own answer is toolgate's words.
      expect((await set("again", new FlowSession())).label.integrity).toBe("trusted");
    } finally {
      await gate.close();
      await close();
    }
  });

  it("asks before a user-level memory write after untrusted content, not before a project one", async () => {
    const { state, close } = await open();
    const gate = await gateOver(state);
    try {
      const asked: string[] = [];
      const confirm: Confirm = async (request) => {
        asked.push(String(request.details.context));
        return { approved: true };
      };
      const session = FlowSession.from({ label: FETCHED });
      const write = (scope: string) =>
        gate.execute(
          { name: "memory", args: { action: "set", scope, key: "k", value: "v" } },
          { session, confirm },
        );
      expect((await write("project")).decision).toBe("allow");
      const user = await write("user");
      expect(user.decision).toBe("ask");
      expect(user.flow?.effect).toBe("ask");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("web_fetch evil.example");
      // Approved, it is stored with the untrusted label all the same.
      const back = await gate.execute({ name: "memory", args: { action: "get", scope: "user", key: "k" } });
      expect(back.label.integrity).toBe("untrusted");
    } finally {
      await gate.close();
      await close();
    }
  });
});
