/**
 * @module test-support/console-scale
 * The console at the scale, for its browser test and its bench: 1,000 pending asks from ten agents
 * in a store, and an audit log of 100,000 records written as the audit writer writes them (one
 * `displaySafeJson` line each), times one second apart and oldest first, tools, decisions and agents in a
 * fixed rotation so a test can say exactly which records a filter selects.
 */
import { writeFileSync } from "node:fs";
import { type ApprovalStore, type AuditRecord, displaySafeJson } from "../core/index.js";
import { ask, DETAILS } from "./console.js";

export const SCALE_ASKS = 1_000;
export const SCALE_RECORDS = 100_000;
const AGENTS = 10;
const TOOLS = ["read_file", "write_file", "shell", "grep", "web_fetch", "edit", "glob"] as const;
const DECISIONS = ["allow", "allow", "ask", "deny", "allow"] as const;
const START = Date.parse("2026-11-01T00:00:00.000Z");

/** The `i`th record of the scale log (i from 0, the oldest). */
export function scaleRecord(i: number): AuditRecord {
  const decision = DECISIONS[i % DECISIONS.length] as (typeof DECISIONS)[number];
  return {
    time: new Date(START + i * 1000).toISOString(),
    tool: TOOLS[i % TOOLS.length] as string,
    callId: `call-${i}`,
    agent: `agent-${i % 13}`,
    argsDigest: `sha256:${i.toString(16).padStart(64, "0")}`,
    decision,
    rule: decision === "allow" ? "builtin#read-only" : `policy.toml#${(i % 9) + 1}`,
    risk: decision === "deny" ? "high" : "low",
    outcome: decision === "deny" ? "denied_by_policy" : "ok",
    durationMs: i % 97,
  };
}

/** Writes the scale log to `file` (`n` records, oldest first). */
export function writeScaleLog(file: string, n = SCALE_RECORDS): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(displaySafeJson(scaleRecord(i)));
  writeFileSync(file, `${lines.join("\n")}\n`);
}

/** Publishes `n` pending asks from ten agents (`scale-0` … `scale-9`), each with its own command. */
export async function publishScaleAsks(store: ApprovalStore, n = SCALE_ASKS): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const command = `make target-${i}`;
    const record = await store.publish(
      ask({
        callId: `scale-${i}`,
        agent: `scale-${i % AGENTS}`,
        details: { ...DETAILS, command, description: `shell: ${command}` },
      }),
    );
    ids.push(record.id);
  }
  return ids;
}
