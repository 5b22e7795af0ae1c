/**
 * @module test-support/audit-cli
 * What the audit log's tests share, for the JSONL file (core/) and fleet mode's stream (fleet/) alike: a
 * record to write, a batch of calls for `toolgate call --batch -`, `toolgate` bound to one workspace and
 * config, the `seq` of each JSON line printed, and a running `toolgate audit tail --follow`.
 */
import { spawn } from "node:child_process";
import { expect } from "vitest";
import type { AuditRecord } from "../core/index.js";
import { BIN, type RunResult, toolgate } from "./cli.js";
import { toolgateInProcess } from "./cli-in-process.js";

/** One allowed call's record. */
export const sampleRecord: AuditRecord = {
  time: "2026-01-01T00:00:00.000Z",
  tool: "read_file",
  argsDigest: "sha256:x",
  decision: "allow",
  rule: "p#1",
  risk: "low",
  outcome: "ok",
  durationMs: 1,
};

/** `n` reads of `a.txt`, one JSON call a line: the input of `toolgate call --batch -`. */
export const readCalls = (n: number) =>
  `${JSON.stringify({ name: "read_file", args: { path: "a.txt" } })}\n`.repeat(n);

/**
 * `toolgate --workspace WS --config CONFIG ARGS…`, fed `input` when given: the real binary (`"process"`), or
 * its dispatcher in this process (`"in-process"`, cli-in-process.ts) where the test is about what the command
 * does, not about separate processes (a spawn in fleet mode costs ~1.5 CPU s, most of it loading the Redis
 * client again).
 */
export function auditCli(ws: string, config: string, where: "process" | "in-process" = "process") {
  const run = where === "process" ? toolgate : toolgateInProcess;
  return (args: string[], input?: string): Promise<RunResult> =>
    run(["--workspace", ws, "--config", config, ...args], input === undefined ? {} : { input });
}

/** The `seq` of each record in JSON lines (`--json` output). */
export const seqs = (jsonLines: string): unknown[] =>
  jsonLines
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).seq);

/** A running `toolgate --json audit tail -n 0 --follow`: the seqs it printed so far, and how to stop it. */
export interface Follower {
  seqs(): unknown[];
  /** Stops it (SIGINT) and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Starts a follower and waits until it says it follows `where` (records appended from then on are shown). */
export async function followAudit(ws: string, config: string, where: string): Promise<Follower> {
  const args = ["--workspace", ws, "--config", config, "--json", "audit", "tail", "-n", "0", "--follow"];
  const child = spawn(process.execPath, [BIN, ...args]);
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const follower = {
    seqs: () => seqs(out),
    stop: () => {
      child.kill("SIGINT");
      return exited;
    },
  };
  try {
    await expect.poll(() => err, { timeout: 60_000 }).toContain(`following ${where}`);
  } catch (error) {
    await follower.stop();
    throw error;
  }
  return follower;
}
