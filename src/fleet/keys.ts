/**
 * @module fleet/keys
 * Every Redis key fleet mode uses, in one place: `toolgate:{PROJECT}:…`. The braces are a hash tag, so all
 * of one project's keys live in one Redis Cluster slot (its scripts may touch several keys at once).
 */

/** A project name: what may go between the braces (no braces, no spaces, not empty). */
const PROJECT = /^[A-Za-z0-9._-]{1,100}$/;

/** Why `project` cannot name a key namespace, or `undefined`. */
export function projectNameProblem(project: string): string | undefined {
  if (PROJECT.test(project)) return undefined;
  return `[fleet] project ${JSON.stringify(project)} must be 1–100 letters, digits, ".", "_" or "-"`;
}

/** The keys of one project. */
export interface FleetKeys {
  readonly prefix: string;
  /** Hash: one approval record. */
  approval(id: string): string;
  /** Sorted set: every approval id, by creation time. */
  readonly approvals: string;
  /** Sorted set: pending approval ids, by expiry time. */
  readonly pending: string;
  /** Stream: one entry per ask published or settled (wake-ups for notifiers, at least once). */
  readonly approvalStream: string;
  /** Pub/sub channel: the same events, for waiters in this moment. */
  readonly approvalChannel: string;
  /** Hash: memory key → `revision \n record JSON`. */
  memory(scope: string): string;
  /** Counter handing out memory revisions. */
  readonly memoryRevision: string;
  /** String: `revision \n todo list JSON`. */
  readonly todos: string;
  /** Hash: the shared policy overlay, rule id (the approval's id) → rule JSON ("always" decisions). */
  readonly overlayRules: string;
  /** Counter: the overlay's version, raised by every rule added or removed. */
  readonly overlayVersion: string;
  /** Stream: one entry per approved call started; pending in group `runs` until the call finished. */
  readonly runs: string;
  /** Stream: the audit log, one hash-chained entry per call (fleet/audit-sink.ts). */
  readonly audit: string;
  /** Hash: the audit chain's head, `seq` and `hash` of the last record appended. */
  readonly auditHead: string;
  /** Hash: the range trimmed from the audit stream (`seq`, `hash` of its last record, `to`, `by`, `at`). */
  readonly auditTrimmed: string;
  /** String: who is trimming the audit stream now (a lock with an expiry). */
  readonly auditTrimLock: string;
  /** String: the last batch number a writer appended (so a batch sent again after a lost reply is not doubled). */
  auditWriter(writer: string): string;
}

/** The consumer group of the runs stream: every worker is a consumer, by its worker name. */
export const RUNS_GROUP = "runs";

/**
 * The keys of `project`.
 * @example fleetKeys("shop").approval("1f0c…") // "toolgate:{shop}:approval:1f0c…"
 */
export function fleetKeys(project: string): FleetKeys {
  const problem = projectNameProblem(project);
  if (problem) throw new Error(problem);
  const prefix = `toolgate:{${project}}:`;
  return {
    prefix,
    approval: (id) => `${prefix}approval:${id}`,
    approvals: `${prefix}approvals`,
    pending: `${prefix}approvals:pending`,
    approvalStream: `${prefix}approvals:stream`,
    approvalChannel: `${prefix}approvals:events`,
    memory: (scope) => `${prefix}memory:${scope}`,
    memoryRevision: `${prefix}memory:revision`,
    todos: `${prefix}todos`,
    overlayRules: `${prefix}policy:rules`,
    overlayVersion: `${prefix}policy:version`,
    runs: `${prefix}runs`,
    audit: `${prefix}audit`,
    auditHead: `${prefix}audit:head`,
    auditTrimmed: `${prefix}audit:trimmed`,
    auditTrimLock: `${prefix}audit:trim-lock`,
    auditWriter: (writer) => `${prefix}audit:writer:${writer}`,
  };
}
