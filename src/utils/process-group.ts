/**
 * @module utils/process-group
 * The one way toolgate starts a child that may start children of its own: as the leader of a new process
 * group, so stopping it stops the whole tree (SIGTERM to the group, SIGKILL after a grace period) and no
 * grandchild survives. The shell tool, hooks and MCP stdio servers all start their children here.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

// Ref'd on purpose: a caller waiting for its group to stop must keep Node alive until it has (an unref'd wait
// let Node exit mid-call, status 0 with no output, when a kill landed right after the command started).
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts `program` as the leader of a new process group (its pid is the group's id). */
export function spawnGroup(program: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn(program, args, { ...options, detached: true });
}

/**
 * Live (not zombie) members of process group `pgid`. Reads `/proc` where it exists, because a reaper-less
 * init leaves zombies that `kill(-pgid, 0)` would still count.
 */
export function liveGroupMembers(pgid: number): number[] {
  try {
    process.kill(-pgid, 0);
  } catch {
    return []; // ESRCH: not even a zombie is left (the common case, and cheap).
  }
  if (!existsSync("/proc/self/stat")) return [pgid];
  const live: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") live.push(Number(entry));
  }
  return live;
}

/** Sends `signal` to every member of group `pgid`; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** SIGTERM to the whole group; SIGKILL after `graceMs` if anything is left; resolves once it is gone. */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (liveGroupMembers(pgid).length === 0) return;
    await sleep(20);
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 50 && liveGroupMembers(pgid).length > 0; i++) await sleep(20);
}
