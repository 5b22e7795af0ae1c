/**
 * @module sandbox/process-start
 * Which process a pid names: its start time (field 22 of /proc/PID/stat, clock ticks since boot), so a pid the
 * kernel reused does not pass for a process that is gone.
 */
import { readFileSync } from "node:fs";

/** A process's start time, or undefined when it is gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
