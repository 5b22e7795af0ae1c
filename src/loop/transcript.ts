/**
 * @module loop/transcript
 * Session transcripts: one JSONL file per session (and one per sub-agent run) under `.toolgate/sessions/`,
 * a record per line — the session's start, every message, every tool call with its decision and result,
 * plans, routing, sub-agents, the end of each turn. Writes are appended in order and never fail a session.
 */
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  type Decision,
  FlowSession,
  type Label,
  type RiskLevel,
  type ToolErrorType,
  UNDECLARED,
} from "../core/index.js";
import type { ChatMessage } from "../llm/index.js";
import type { PlanMethod, RoutingPlan, SkippedCall } from "../planner/index.js";

/**
 * The transcript format's version, in each `session` record. Files without one (before versions) are
 * version 0 and still read: the records are the same, only `version` is new.
 */
export const TRANSCRIPT_VERSION = 1;

/** One line of a transcript. Every record has `type` and `time` (ISO 8601). */
export type TranscriptRecord = { time: string } & (
  | {
      type: "session";
      /** Absent in files written before versions (version 0). */
      version?: number;
      id: string;
      /** The transcript this session continues (`chat --resume`). */
      resumes?: string;
      provider: string;
      model: string;
      root?: string;
      agent?: string;
      depth?: number;
      parent?: string;
      tools: string[];
    }
  | { type: "message"; message: ChatMessage }
  | { type: "routing"; plan: RoutingPlan | null }
  | { type: "plan"; method: PlanMethod; reason: string; skipped: SkippedCall[] }
  | { type: "tool_call"; id: string; name: string; args: unknown; description: string }
  | {
      type: "tool_result";
      id: string;
      name: string;
      decision: Decision | null;
      rule: string | null;
      risk: RiskLevel | null;
      ok: boolean;
      error: { type: ToolErrorType; message: string } | null;
      durationMs: number;
      content: string;
      /** The result's label (docs/injection.md); absent in transcripts of older toolgates. */
      label?: Label;
    }
  | { type: "sub_agent"; agent: string; depth: number; file: string; ok: boolean }
  | {
      type: "compaction";
      shortened: number;
      summarised: number;
      /** The newest round's results cut further to fit (absent: none). */
      cut?: number;
      before: number;
      after: number;
    }
  | { type: "clear" }
  | { type: "model"; provider: string; model: string }
  | {
      type: "turn_end";
      stopReason: string;
      steps: number;
      answer: string;
      error?: { kind: string; message: string };
    }
);

/** A record before its time is stamped. */
export type TranscriptEntry = TranscriptRecord extends infer R
  ? R extends { time: string }
    ? Omit<R, "time">
    : never
  : never;

/** The folder transcripts go to. */
export function sessionsDir(root: string): string {
  return join(root, ".toolgate", "sessions");
}

/** Appends records to one file, in order. */
export class Transcript {
  private chain: Promise<void> = Promise.resolve();
  private failed = false;

  private constructor(
    readonly id: string,
    readonly file: string,
    private readonly onError?: (message: string) => void,
  ) {}

  /**
   * Creates a transcript file named after the time, the agent and a random suffix.
   * @example const t = await Transcript.create(sessionsDir(root), "chat");
   */
  static async create(dir: string, label: string, onError?: (message: string) => void): Promise<Transcript> {
    await mkdir(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
    const id = `${stamp}-${safeLabel(label)}-${randomBytes(3).toString("hex")}`;
    return new Transcript(id, join(dir, `${id}.jsonl`), onError);
  }

  /**
   * Opens an existing transcript to append to it (`chat --resume`).
   * @example const t = Transcript.open(".toolgate/sessions/20250101-120000-chat-abc123.jsonl");
   */
  static open(file: string, onError?: (message: string) => void): Transcript {
    return new Transcript(basename(file).replace(/\.jsonl$/, ""), file, onError);
  }

  /** Queues one record. */
  write(entry: TranscriptEntry): void {
    const line = `${JSON.stringify({ ...entry, time: new Date().toISOString() })}\n`;
    this.chain = this.chain.then(() =>
      appendFile(this.file, line, "utf8").catch((error: Error) => {
        // A full disk must not end the session; say it once.
        if (!this.failed) this.onError?.(`cannot write the transcript ${this.file}: ${error.message}`);
        this.failed = true;
      }),
    );
  }

  /** Resolves when every queued record is on disk. */
  flush(): Promise<void> {
    return this.chain;
  }
}

function safeLabel(label: string): string {
  return label.replace(/[^a-zA-Z0-9_.-]+/g, "_").slice(0, 40) || "session";
}

/** Reads a transcript; a line that is not JSON is reported with its number. */
export async function readTranscript(file: string): Promise<TranscriptRecord[]> {
  const text = await readFile(file, "utf8");
  const records: TranscriptRecord[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      records.push(JSON.parse(line) as TranscriptRecord);
    } catch {
      throw new Error(`${file}:${i + 1}: not a JSON line`);
    }
  });
  return records;
}

/**
 * The conversation a transcript holds, to continue it: its messages other than the system prompt, from
 * the last `/clear` on.
 */
/**
 * The context label of a transcript's conversation, for resuming it: the join of its tool results' labels
 * since the last `clear`, and the hosts of the user's messages. A result written without a label (an older
 * toolgate) counts as untrusted and private: a missing label is the unsafe case.
 */
export function flowOf(records: readonly TranscriptRecord[]): FlowSession {
  let session = new FlowSession();
  for (const r of records) {
    if (r.type === "clear") session = new FlowSession();
    else if (r.type === "message" && r.message.role === "user") session.noteTrusted(r.message.content ?? "");
    else if (r.type === "tool_result") session.add(r.label ?? unlabelled(r.name));
  }
  return session;
}

function unlabelled(tool: string): Label {
  return { ...UNDECLARED, sources: [{ tool, ...UNDECLARED, what: "a transcript entry without a label" }] };
}

export function historyOf(records: readonly TranscriptRecord[]): ChatMessage[] {
  let history: ChatMessage[] = [];
  for (const r of records) {
    if (r.type === "clear") history = [];
    else if (r.type === "message" && r.message.role !== "system") history.push(r.message);
  }
  return history;
}
