/**
 * @module loop
 * The agent loop's front door: sessions (model ↔ planner ↔ pipeline), routing, session approvals,
 * transcripts and replay, the sub-agent runner, and the host that brings a project's tool pool into a gate.
 * Anything added here is public.
 */
export { type Answer, answerResponse, ConfirmationBroker, fixedConfirm } from "./approvals.js";
export { attachToolPool, type SessionHost } from "./host.js";
export { formatMs, renderTranscript } from "./replay.js";
export { AgentSession } from "./session.js";
export { createAgentRunner } from "./sub-agents.js";
export { flowOf, historyOf, readTranscript, sessionsDir, Transcript } from "./transcript.js";
export type { LoopEvent, SessionOptions, TurnResult } from "./types.js";
