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
import { type FleetClient, runScript } from "./connect.js";
import { type FleetKeys, RUNS_GROUP } from "./keys.js";

/** A worker's name when none is configured. */
export const DEFAULT_WORKER = `${hostname()}:${process.pid}`;

/** How long a run's entry may sit unrefreshed before a claim calls its worker dead (default 30 s). */
export const DEFAULT_CLAIM_IDLE_MS = 30_000;

/**
 * Marks approval `id`'s call as started by `worker`; rejects unless it is approved and not started yet. The
 * returned function marks it finished (and stops the refreshing).
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
  // The server away when the call ends: keep refreshing and try again, until the claim idle time has passed
  // (a claim may have marked the run interrupted by then; the script then leaves that as it is).
  return async () => {
    const giveUp = Date.now() + claimIdleMs;
    try {
      for (;;) {
        try {
          await runScript(
            client,
            END_RUN_SCRIPT,
            [keys.approval(id), keys.runs],
            ["finished", now(), RUNS_GROUP, entry, worker],
          );
          return;
        } catch (error) {
          if (Date.now() >= giveUp) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      clearInterval(refresh);
    }
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
