/**
 * @module fleet/runs
 * Approved calls that started and whose worker died before they finished. Starting a call enters it in the
 * project's runs stream, read at once into its worker's pending list (consumer group `runs`); the worker keeps
 * the entry fresh while the call runs (XCLAIM to itself) and acknowledges it when the call ends. An entry
 * idle longer than the claim idle time belongs to a dead worker: the next claim (XAUTOCLAIM, by any worker)
 * marks its call `interrupted` and acknowledges it. Nothing is ever run again: at-least-once delivery of the
 * entry only ever reaches the marking, never the tool.
 */
import { hostname } from "node:os";
import { END_RUN_SCRIPT, START_SCRIPT } from "./approval-scripts.js";
import { type FleetClient, RECONNECT_CAP_MS, runScript } from "./connect.js";
import { type FleetKeys, RUNS_GROUP } from "./keys.js";

/** A worker's name when none is configured. */
export const DEFAULT_WORKER = `${hostname()}:${process.pid}`;

/** How long a worker keeps trying to write the end of a run while the server is away (10 minutes). */
export const END_RETRY_MS = 600_000;

/** How long a run's entry may sit unrefreshed before a claim calls its worker dead (default 30 s). */
export const DEFAULT_CLAIM_IDLE_MS = 30_000;

/**
 * How long after its own connection (re)opens a claimer leaves idle runs alone. A server that was away has
 * kept counting every entry's idle time, refreshes included: the entries of live workers look dead until those
 * workers are back (within a reconnection's longest wait) and have refreshed (within a third of the idle
 * time). Without this, a restart longer than the claim idle time would mark running calls interrupted.
 */
export function claimGraceMs(claimIdleMs: number): number {
  return claimIdleMs + RECONNECT_CAP_MS;
}

/**
 * Marks approval `id`'s call as started by `worker`; rejects unless it is approved and not started yet. The
 * returned function marks it finished (and stops the refreshing); while the server is away it resolves at
 * once and keeps trying in the background.
 * @example const end = await beginRun(client, keys, id, "w1", Date.now, 30_000); try { run() } finally { await end() }
 */
export async function beginRun(
  client: FleetClient,
  keys: FleetKeys,
  id: string,
  worker: string,
  now: () => number,
  claimIdleMs = DEFAULT_CLAIM_IDLE_MS,
): Promise<() => Promise<void>> {
  const reply = (await runScript(
    client,
    START_SCRIPT,
    [keys.approval(id), keys.runs],
    [worker, now(), RUNS_GROUP],
  )) as string[];
  if (reply[0] !== "started") {
    const why = reply[2] ? "its call was started already" : `it is ${reply[1]}`;
    throw new Error(`approval ${id} cannot start a run: ${why}`);
  }
  const entry = reply[1] as string;
  // Refreshing resets the entry's idle time, so a long call of a live worker is never claimed.
  const refresh = setInterval(
    () => {
      client
        .sendCommand(["XCLAIM", keys.runs, RUNS_GROUP, worker, "0", entry, "JUSTID"])
        .catch(() => undefined);
    },
    Math.max(10, Math.floor(claimIdleMs / 3)),
  );
  refresh.unref();
  // The server away when the call ends: the result is not held for it. The end is tried again in the
  // background, with the refreshing kept up meanwhile (so no claim mistakes the live run for a dead one),
  // until it is written or END_RETRY_MS have passed (then a claim marks the run interrupted: its end is
  // unknown to the fleet). A run left started by a worker that exits meanwhile is claimed the same way.
  return async () => {
    const write = () =>
      runScript(
        client,
        END_RUN_SCRIPT,
        [keys.approval(id), keys.runs],
        ["finished", now(), RUNS_GROUP, entry, worker],
      );
    try {
      await write();
      clearInterval(refresh);
      return;
    } catch {
      // tried again below
    }
    const giveUp = Date.now() + Math.max(END_RETRY_MS, claimGraceMs(claimIdleMs));
    void (async () => {
      for (let wait = 100; Date.now() < giveUp; wait = Math.min(wait * 2, 1_000)) {
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
        if (
          await write().then(
            () => true,
            () => false,
          )
        )
          break;
      }
      clearInterval(refresh);
    })();
  };
}

/**
 * Claims every run entry idle for `claimIdleMs` or longer (its worker died) and marks its call
 * `interrupted`; returns the approval ids marked. Entries whose stream entry was trimmed away are dropped
 * from the pending list by XAUTOCLAIM itself.
 */
export async function claimInterrupted(
  client: FleetClient,
  keys: FleetKeys,
  worker: string,
  now: () => number,
  claimIdleMs = DEFAULT_CLAIM_IDLE_MS,
): Promise<string[]> {
  const marked: string[] = [];
  let cursor = "0-0";
  do {
    let reply: [string, [string, string[]][] | null, string[]?];
    try {
      reply = (await client.sendCommand([
        "XAUTOCLAIM",
        keys.runs,
        RUNS_GROUP,
        worker,
        String(claimIdleMs),
        cursor,
        "COUNT",
        "100",
      ])) as typeof reply;
    } catch (error) {
      // No run has started in this project yet: nothing to claim.
      if (String((error as Error).message).startsWith("NOGROUP")) return marked;
      throw error;
    }
    cursor = reply[0];
    for (const item of reply[1] ?? []) {
      if (!item) continue;
      const [entry, fields] = item;
      const at = fields.indexOf("id");
      const id = at >= 0 ? fields[at + 1] : undefined;
      if (id === undefined) continue;
      const state = await runScript(
        client,
        END_RUN_SCRIPT,
        [keys.approval(id), keys.runs],
        ["interrupted", now(), RUNS_GROUP, entry, worker],
      );
      if (state === "interrupted") marked.push(id);
    }
  } while (cursor !== "0-0");
  return marked;
}
