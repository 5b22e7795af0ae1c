/**
 * @module tools/memory
 * The `memory` tool: a persistent key-value memory the model keeps across conversations, per project or per
 * user, in the gate's state backend (by default `.toolgate/state/memory.json` and the user's state folder).
 */

import type { Tool } from "../core/index.js";
import { defineTool, joinStored, okResult, readStoredLabel, storedLabelOf } from "../core/index.js";
import {
  createMemoryStore,
  type MemoryStore,
  memoryKeyProblem,
  memoryValueProblem,
  type StateBackend,
  type StateScope,
} from "../state/index.js";
import { failFromState } from "./state-failure.js";

/** The tool's default value cap: enough for notes, small enough to keep the file and the context lean. */
export const MEMORY_TOOL_MAX_VALUE_BYTES = 64 * 1024;

/** What the memory tool is built from. */
export interface MemoryToolDeps {
  /** Where memory is kept: the gate's state backend (`gate.state`). */
  state: StateBackend;
  /** Largest value the tool accepts, in UTF-8 bytes (default 64 KiB). */
  maxValueBytes?: number;
}

/** The memory tool's parameters (a type alias, so a `Tool<MemoryParams>` registers as a `Tool`). */
export type MemoryParams = {
  action: "set" | "get" | "delete" | "list";
  key?: string;
  value?: string;
  scope?: StateScope;
};

const NEEDS_KEY = new Set(["set", "get", "delete"]);

/**
 * Creates the `memory` tool.
 *
 * Kind `other`, risk `low`: it writes only toolgate's own state (never the user's files, and no
 * file-writing tool can reach them), so it is not an `edit`; it is not read-only either, so the built-in
 * default policy (read-only kinds allowed) does not allow it silently — the policy decides.
 * @example registry.register(createMemoryTool({ state: createFileStateBackend({ root: "/ws" }) }))
 */
export function createMemoryTool(deps: MemoryToolDeps): Tool<MemoryParams> {
  const maxValueBytes = deps.maxValueBytes ?? MEMORY_TOOL_MAX_VALUE_BYTES;
  const stores = new Map<StateScope, MemoryStore>();
  const storeFor = (scope: StateScope): MemoryStore => {
    let store = stores.get(scope);
    if (!store) {
      store = createMemoryStore(deps.state.memory(scope), { maxValueBytes });
      stores.set(scope, store);
    }
    return store;
  };

  return defineTool<MemoryParams>({
    name: "memory",
    displayName: "Memory",
    description:
      "Persistent key-value memory that survives across conversations. Actions: `set` stores `value` under " +
      "`key`; `get` returns the value of `key` (or says it is not found); `delete` removes `key`; `list` " +
      'returns all keys. `scope` is "project" (default: this workspace) or "user" (shared by all projects). ' +
      `Keys: 1-128 characters of letters, digits and _ . : / -. Values: text up to ${maxValueBytes} bytes.`,
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["set", "get", "delete", "list"], description: "What to do." },
        key: { type: "string", description: "The key (for set, get, delete)." },
        value: { type: "string", description: "The text to store (for set)." },
        scope: {
          type: "string",
          enum: ["project", "user"],
          default: "project",
          description: "project (this workspace) or user (all projects).",
        },
      },
      required: ["action"],
      additionalProperties: false,
    },
    kind: "other",
    risk: "low",
    validate(params) {
      if (NEEDS_KEY.has(params.action)) {
        if (params.key === undefined) return `"key" is required for action "${params.action}"`;
        const problem = memoryKeyProblem(params.key);
        if (problem) return problem;
      }
      if (params.action === "set") {
        if (params.value === undefined) return `"value" is required for action "set"`;
        return memoryValueProblem(params.value, maxValueBytes);
      }
      return undefined;
    },
    describe: ({ action, key, scope = "project" }) =>
      action === "list" ? `memory list (${scope})` : `memory ${action} ${JSON.stringify(key)} (${scope})`,
    locations: ({ scope = "project" }) => [storeFor(scope).path],
    async run(params, { context }) {
      const scope = params.scope ?? "project";
      const where = `${scope} memory`;
      const store = storeFor(scope);
      const key = params.key as string;
      try {
        switch (params.action) {
          case "set": {
            const value = params.value as string;
            // The value is what the model wrote with what it had read: it keeps that label (docs/injection.md).
            await store.set(key, value, { meta: { label: { ...storedLabelOf(context?.label) } } });
            const bytes = Buffer.byteLength(value, "utf8");
            return okResult(`Saved "${key}" in ${where} (${bytes} bytes).`, undefined, {
              action: "set",
              scope,
              key,
              bytes,
            });
          }
          case "get": {
            const record = await store.read(key);
            if (record === undefined) {
              return okResult(`Not found: no value is stored under "${key}" in ${where}.`, undefined, {
                action: "get",
                scope,
                key,
                found: false,
              });
            }
            const { value } = record;
            return okResult(`Value of "${key}" in ${where}:\n${value}`, undefined, {
              action: "get",
              scope,
              key,
              found: true,
              value,
              label: { ...readStoredLabel(record.meta?.["label"]) },
            });
          }
          case "delete": {
            const deleted = await store.delete(key);
            const text = deleted
              ? `Deleted "${key}" from ${where}.`
              : `Not found: no value is stored under "${key}" in ${where}; nothing was deleted.`;
            return okResult(text, undefined, { action: "delete", scope, key, deleted });
          }
          default: {
            const entries = await store.list();
            const keys = entries.map((e) => e.key);
            // Key names are written by whoever wrote the entries: the listing carries their join.
            const label = joinStored(entries.map((e) => readStoredLabel(e.meta?.["label"])));
            const text =
              keys.length === 0
                ? `No keys in ${where}.`
                : `${keys.length} ${keys.length === 1 ? "key" : "keys"} in ${where}:\n${keys.join("\n")}`;
            return okResult(text, undefined, { action: "list", scope, keys, label: { ...label } });
          }
        }
      } catch (error) {
        failFromState(error);
      }
    },
  });
}
