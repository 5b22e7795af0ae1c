/**
 * @module fleet/state-backend
 * Memory and todos on Redis, behind the state backend seam: the rules and messages stay in
 * `state/memory-store.ts` and `state/todo-store.ts`. Each stored value is `REVISION \n JSON`; a Lua script
 * compares the revision and writes in one step, so of two writers that read the same revision one wins
 * (optimistic concurrency: a todo change that lost is run again on the newer list).
 */
import type {
  Change,
  MemoryRecord,
  MemoryRecords,
  StateBackend,
  StateScope,
  TodoList,
  TodoRecords,
  WriteOutcome,
} from "../state/index.js";
import { type FleetClient, runScript } from "./connect.js";
import { type FleetKeys, fleetKeys } from "./keys.js";

/** KEYS: hash, revision counter. ARGV: field, mode (any | absent | rev), expected revision, JSON. */
const PUT_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local mode = ARGV[2]
if mode == 'absent' and cur then return {0, cur} end
if mode == 'rev' and (not cur or string.match(cur, '^[^\\n]*') ~= ARGV[3]) then return {0, cur or ''} end
local value = redis.call('INCR', KEYS[2]) .. '\\n' .. ARGV[4]
redis.call('HSET', KEYS[1], ARGV[1], value)
return {1, value}
`;

/** KEYS: hash. ARGV: field, mode (any | rev), expected revision. */
const DELETE_SCRIPT = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == 'rev' and (not cur or string.match(cur, '^[^\\n]*') ~= ARGV[3]) then return {0, cur or ''} end
return {1, tostring(redis.call('HDEL', KEYS[1], ARGV[1]))}
`;

/** KEYS: the list's key. ARGV: the revision read, the new JSON. Returns the new revision, or 0 when it moved. */
const SWAP_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
local rev = cur and string.match(cur, '^[^\\n]*') or '0'
if rev ~= ARGV[1] then return 0 end
local next = tonumber(rev) + 1
redis.call('SET', KEYS[1], next .. '\\n' .. ARGV[2])
return next
`;

/** Splits `REVISION \n JSON`. */
function split(stored: string): { revision: string; json: string } {
  const at = stored.indexOf("\n");
  return { revision: stored.slice(0, at), json: stored.slice(at + 1) };
}

function memoryRecord(key: string, stored: string): MemoryRecord {
  const { revision, json } = split(stored);
  return { key, ...JSON.parse(json), revision };
}

function memoryRecords(client: FleetClient, keys: FleetKeys, scope: StateScope): MemoryRecords {
  const hash = keys.memory(scope);
  const refused = (stored: string, key: string): { ok: false; current?: MemoryRecord } =>
    stored ? { ok: false, current: memoryRecord(key, stored) } : { ok: false };
  return {
    path: `redis:${hash}`,
    async get(key) {
      const stored = await client.hGet(hash, key);
      return stored ? memoryRecord(key, stored) : undefined;
    },
    async list() {
      const all = await client.hGetAll(hash);
      return Object.keys(all)
        .sort()
        .map((key) => memoryRecord(key, all[key] as string));
    },
    async put(key, write, ifRevision): Promise<WriteOutcome<MemoryRecord>> {
      const mode = ifRevision === undefined ? "any" : ifRevision === null ? "absent" : "rev";
      const { meta, ...rest } = write;
      const json = JSON.stringify(meta === undefined ? rest : { ...rest, meta });
      const [ok, stored] = (await runScript(
        client,
        PUT_SCRIPT,
        [hash, keys.memoryRevision],
        [key, mode, ifRevision ?? "", json],
      )) as [number, string];
      return ok === 1 ? { ok: true, value: memoryRecord(key, stored) } : refused(stored, key);
    },
    async delete(key, ifRevision): Promise<WriteOutcome<boolean>> {
      const mode = ifRevision === undefined ? "any" : "rev";
      const [ok, result] = (await runScript(
        client,
        DELETE_SCRIPT,
        [hash],
        [key, mode, ifRevision ?? ""],
      )) as [number, string];
      return ok === 1 ? { ok: true, value: result === "1" } : refused(result, key);
    },
  };
}

function todoRecords(client: FleetClient, keys: FleetKeys): TodoRecords {
  const read = async (): Promise<{ list: TodoList; revision: string }> => {
    const stored = await client.get(keys.todos);
    if (!stored) return { list: { nextId: 1, items: [] }, revision: "0" };
    const { revision, json } = split(stored);
    return { list: JSON.parse(json), revision };
  };
  return {
    path: `redis:${keys.todos}`,
    read,
    async update<R>(change: (list: TodoList) => Change<R>): Promise<R> {
      for (;;) {
        const { list, revision } = await read();
        const { result, changed } = change(list);
        if (!changed) return result;
        const swapped = await runScript(client, SWAP_SCRIPT, [keys.todos], [revision, JSON.stringify(list)]);
        if (swapped !== 0) return result; // else someone wrote meanwhile: run the change on their list
      }
    },
  };
}

/** Options of {@link createRedisStateBackend}. */
export interface RedisStateBackendOptions {
  client: FleetClient;
  /** The key namespace. */
  project: string;
  /** Whether `close()` also closes `client` (default true). */
  ownsClient?: boolean;
}

/**
 * Memory and todos of one project in Redis, shared by every worker. The `user` scope is the project's too
 * (`toolgate:{PROJECT}:memory:user`): on a fleet there is no one user folder.
 * @example const gate = await createToolgate({ state: createRedisStateBackend({ client, project: "shop" }) });
 */
export function createRedisStateBackend(options: RedisStateBackendOptions): StateBackend {
  const { client } = options;
  const keys = fleetKeys(options.project);
  const memory = new Map<StateScope, MemoryRecords>();
  const todos = todoRecords(client, keys);
  return {
    memory(scope) {
      let records = memory.get(scope);
      if (!records) {
        records = memoryRecords(client, keys, scope);
        memory.set(scope, records);
      }
      return records;
    },
    todos: () => todos,
    async close() {
      if ((options.ownsClient ?? true) && client.isOpen) await client.close();
    },
  };
}
