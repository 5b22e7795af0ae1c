/**
 * @module hooks/verdict
 * The two ends of the hook contract, per format: the JSON a hook gets on stdin ({@link hookInput}), and what
 * its exit status and stdout mean ({@link verdictOf}). Exit 0 with no output: no opinion. Exit 0 with JSON: its
 * decision. Exit 2: deny (block), stderr as the reason. Anything else fails — and a failing hook denies.
 */
import type { Decision } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";
import { toHost } from "./mapping.js";
import type { HookRun } from "./run-hook.js";
import type { HookEvent, HookSpec } from "./sources.js";

/** What a hook's run means. `failure` when it gave no usable answer. */
export interface HookVerdict {
  decision?: Decision;
  reason?: string;
  /** post_tool: text appended, labelled, to what the model receives. */
  context?: string;
  failure?: string;
}

/** The call a hook is asked about. */
export interface HookCall {
  event: HookEvent;
  tool: string;
  args: Record<string, unknown>;
  cwd: string;
  sessionId: string;
  callId: string;
  /** post_tool: the tool's result. */
  result?: { llmContent: string; returnDisplay: string; error?: { type: string; message: string } };
}

const HOST_EVENT = {
  claude: { pre_tool: "PreToolUse", post_tool: "PostToolUse" },
  gemini: { pre_tool: "BeforeTool", post_tool: "AfterTool" },
  codex: { pre_tool: "PreToolUse", post_tool: "PostToolUse" },
} as const;

/** The JSON on the hook's stdin, in its format's field names. `now` is the time gemini-cli's input carries. */
export function hookInput(spec: HookSpec, call: HookCall, now = new Date()): Record<string, unknown> {
  if (spec.format === "toolgate") {
    return {
      event: call.event,
      tool: call.tool,
      args: call.args,
      cwd: call.cwd,
      session_id: call.sessionId,
      call_id: call.callId,
      ...(call.result
        ? { result: { llmContent: call.result.llmContent, error: call.result.error ?? null } }
        : {}),
    };
  }
  const host = toHost(spec.format, call.tool, call.args);
  if (spec.format === "codex") return codexInput(call, host);
  const common = {
    session_id: call.sessionId,
    transcript_path: "",
    cwd: call.cwd,
    hook_event_name: HOST_EVENT[spec.format][call.event],
  };
  if (spec.format === "claude") {
    return {
      ...common,
      permission_mode: "default",
      tool_name: host.name,
      tool_input: host.input,
      tool_use_id: call.callId,
      ...(call.result
        ? { tool_response: { output: call.result.llmContent, error: call.result.error?.message ?? null } }
        : {}),
    };
  }
  return {
    ...common,
    timestamp: now.toISOString(),
    tool_name: host.name,
    tool_input: host.input,
    ...(call.result
      ? {
          tool_response: {
            llmContent: call.result.llmContent,
            returnDisplay: call.result.returnDisplay,
            error: call.result.error?.message ?? null,
          },
        }
      : {}),
  };
}

/**
 * Codex's stdin: Claude Code's fields with `turn_id` and `model`, `transcript_path` null. toolgate has no turns
 * and its hooks do not know the model: `turn_id` is the call's id, `model` empty. After the call,
 * `tool_response` is the output the model receives, as text.
 */
function codexInput(call: HookCall, host: { name: string; input: Record<string, unknown> }) {
  return {
    session_id: call.sessionId,
    turn_id: call.callId,
    transcript_path: null,
    cwd: call.cwd,
    hook_event_name: HOST_EVENT.codex[call.event],
    model: "",
    permission_mode: "default",
    tool_name: host.name,
    tool_input: host.input,
    tool_use_id: call.callId,
    ...(call.result ? { tool_response: call.result.llmContent } : {}),
  };
}

const WORDS: Record<string, Decision> = {
  allow: "allow",
  approve: "allow",
  ask: "ask",
  deny: "deny",
  block: "deny",
};

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const clip = (s: string) => (s.length > 500 ? `${s.slice(0, 500)}…` : s);

/** What the hook's run means for the call. */
export function verdictOf(run: HookRun): HookVerdict {
  if (run.failure) return { failure: run.failure };
  if (run.code === 2)
    return { decision: "deny", reason: clip(text(run.stderr) ?? "it exited with status 2") };
  const out = run.stdout.trim();
  if (out === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch {
    return { failure: `printed output that is not JSON (${JSON.stringify(clip(out.slice(0, 80)))})` };
  }
  if (!isPlainObject(json)) return { failure: "printed JSON that is not an object" };
  const specific = isPlainObject(json["hookSpecificOutput"]) ? json["hookSpecificOutput"] : {};
  if (specific["updatedInput"] !== undefined || json["updatedInput"] !== undefined)
    return { failure: "asked to change the call's input (updatedInput), which toolgate does not do" };
  const reason =
    text(specific["permissionDecisionReason"]) ?? text(json["reason"]) ?? text(json["stopReason"]);
  const context = text(specific["additionalContext"]) ?? text(json["additionalContext"]);
  const verdict: HookVerdict = {
    ...(reason ? { reason: clip(reason) } : {}),
    ...(context ? { context } : {}),
  };
  if (json["continue"] === false) return { ...verdict, decision: "deny" };
  const word = specific["permissionDecision"] ?? json["decision"];
  if (word === undefined || word === null) return verdict;
  const decision = typeof word === "string" ? WORDS[word] : undefined;
  if (!decision) return { failure: `gave an unknown decision ${JSON.stringify(word)}` };
  return { ...verdict, decision };
}
