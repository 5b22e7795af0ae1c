/**
 * @module console/batch-group
 * Which asks one batch may answer: exactly the pending asks of one group as the page showed them. A group is
 * one asking process's project and agent (process + project + worker + agent, console/views.ts); the page
 * sends the group's key and the ids it displayed, and the batch is refused — nothing answered — when an id
 * pending in another group is among them, or when the group now holds a pending ask the page did not send
 * (one that joined after the person looked). Asks already settled or unknown are left to the batch itself,
 * which names who decided them.
 */
import type { ApprovalStore } from "../core/index.js";
import { type AskView, askView } from "./views.js";

/** What a group is keyed by: the ask's asking process, its project, its worker and its agent. */
export interface GroupKey {
  process: string | null;
  project: string | null;
  worker: string | null;
  agent: string | null;
}

const FIELDS = ["process", "project", "worker", "agent"] as const;

/** The group key in a request body, or undefined when it is not one. */
export function parseGroupKey(raw: unknown): GroupKey | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const o = raw as Record<string, unknown>;
  if (FIELDS.some((f) => o[f] !== null && typeof o[f] !== "string")) return undefined;
  return Object.fromEntries(FIELDS.map((f) => [f, o[f]])) as unknown as GroupKey;
}

const inGroup = (view: AskView, group: GroupKey) => FIELDS.every((f) => view[f] === group[f]);

/**
 * Why a batch of `ids` for `group` must not be answered, or undefined when the ids are the group's pending
 * asks, all of them (settled or unknown ids aside).
 * @example await batchGroupRefusal(store, { process: "h pid 1 since …", project: "/w", worker: null, agent: null }, ids)
 */
export async function batchGroupRefusal(
  store: ApprovalStore,
  group: GroupKey,
  ids: readonly string[],
): Promise<string | undefined> {
  const pending = (await store.list({ state: "pending" })).map(askView);
  const sent = new Set(ids);
  const elsewhere = pending.filter((v) => sent.has(v.id) && !inGroup(v, group));
  if (elsewhere.length > 0)
    return `none was answered: ${elsewhere.length} of the ${ids.length} asks sent belong to another group (another process, project or agent); answer each group on its own`;
  const unseen = pending.filter((v) => !sent.has(v.id) && inGroup(v, group));
  if (unseen.length > 0)
    return `none was answered: the group now holds ${unseen.length} ask${unseen.length === 1 ? "" : "s"} the page had not shown when you clicked; read them and answer again`;
  return undefined;
}
