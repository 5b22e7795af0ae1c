/**
 * @module loop
 * The agent loop's front door: sessions (model ↔ planner ↔ pipeline), routing, session approvals,
 * transcripts and replay, the sub-agent runner, and the host that brings a project's tool pool into a gate.
 * Anything added here is public.
 */
export {
  type Answer,
  type Asker,
  ConfirmationBroker,
  fixedAsker,
  SessionApprovals,
} from "./approvals.js";
export { attachToolPool, type HostGate, type SessionHost } from "./host.js";
export { systemInstructions } from "./prompts.js";
export { formatMs, renderTranscript } from "./replay.js";
export { parseRoutingReply, type RoutableTool, routeQuery, routingPrompt } from "./routing.js";
export { describeCall, type PendingCall, runCalls } from "./run-calls.js";
export { AgentSession, currentTranscript } from "./session.js";
export { type AgentRunnerOptions, createAgentRunner } from "./sub-agents.js";
export {
  historyOf,
  readTranscript,
  sessionsDir,
  TRANSCRIPT_VERSION,
  Transcript,
  type TranscriptEntry,
  type TranscriptRecord,
} from "./transcript.js";
export type { LoopEvent, LoopGate, SessionOptions, StopReason, TurnResult } from "./types.js";
