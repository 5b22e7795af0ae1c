/**
 * @module loop/replay
 * Renders a transcript for a person: who said what, each tool call with its decision, outcome and
 * duration, plans and sub-agents, the end of each turn.
 */
import type { ChatMessage } from "../llm/index.js";
import type { TranscriptRecord } from "./transcript.js";

const MAX_RESULT_LINES = 12;

/** Renders transcript records as plain text. */
export function renderTranscript(records: readonly TranscriptRecord[]): string {
  const out: string[] = [];
  for (const r of records) {
    switch (r.type) {
      case "session": {
        const who = r.agent ? `agent ${r.agent} (depth ${r.depth ?? 0})` : "chat";
        out.push(`# session ${r.id} — ${who}, ${r.provider} ${r.model}, ${r.time}`);
        if (r.root) out.push(`  workspace: ${r.root}`);
        out.push(`  tools: ${r.tools.length > 0 ? r.tools.join(", ") : "(none)"}`, "");
        break;
      }
      case "message":
        out.push(...renderMessage(r.message));
        break;
      case "routing":
        out.push(r.plan ? `routing: ${JSON.stringify(r.plan)}` : "routing: no plan");
        break;
      case "plan":
        if (r.method !== "native" && r.method !== "none") out.push(`plan (${r.method}): ${r.reason}`);
        for (const s of r.skipped) out.push(`  skipped ${s.name}: ${s.reason}`);
        break;
      case "tool_call":
        out.push(`→ ${r.name}: ${r.description}`);
        break;
      case "tool_result": {
        const status = r.ok ? "ok" : `${r.error?.type ?? "error"}`;
        const decision = r.decision ? `${r.decision}${r.rule ? ` by ${r.rule}` : ""}` : "not decided";
        out.push(`  ${status} · ${decision} · ${formatMs(r.durationMs)}`);
        out.push(...indent(clip(r.content), "  │ "));
        break;
      }
      case "sub_agent":
        out.push(`  sub-agent ${r.agent} (depth ${r.depth}) ${r.ok ? "finished" : "failed"}: ${r.file}`);
        break;
      case "turn_end":
        if (r.stopReason !== "answer") out.push(`(turn ended: ${r.stopReason} after ${r.steps} step(s))`);
        out.push("");
        break;
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function renderMessage(m: ChatMessage): string[] {
  switch (m.role) {
    case "system":
      return [];
    case "user":
      return [`you: ${m.content}`];
    case "assistant": {
      const lines: string[] = [];
      if (m.thinking) lines.push(...indent(clip(m.thinking), "  (thinking) "));
      if (m.content.trim()) lines.push(`model: ${m.content.trim()}`);
      return lines;
    }
    case "tool":
      return [];
  }
}

function clip(text: string): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  if (lines.length <= MAX_RESULT_LINES) return lines.join("\n");
  return [...lines.slice(0, MAX_RESULT_LINES), `… ${lines.length - MAX_RESULT_LINES} more line(s)`].join(
    "\n",
  );
}

function indent(text: string, prefix: string): string[] {
  return text === "" ? [] : text.split("\n").map((l) => `${prefix}${l}`);
}

/** Milliseconds as a person reads them. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}
