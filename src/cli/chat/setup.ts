/**
 * @module cli/chat/setup
 * What `toolgate chat` and `toolgate run` share: the model flags, the model from `[llm]` + flags, the
 * session's confirmation broker, the project's tool pool with `spawn_agents` backed by the loop, the
 * agent's resolved scope (`--agent NAME`), the transcript file, and the session itself.
 */

import type { Confirm, FlowSession } from "../../core/index.js";
import { type ChatMessage, type ChatModel, createChatModel, resolveLlmSettings } from "../../llm/index.js";
import {
  AgentSession,
  attachToolPool,
  ConfirmationBroker,
  createAgentRunner,
  flowOf,
  historyOf,
  type LoopEvent,
  readTranscript,
  type SessionHost,
  sessionsDir,
  Transcript,
} from "../../loop/index.js";
import type { Toolgate } from "../../toolgate.js";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { findTranscript } from "./find-transcript.js";
import { offerLocalModel } from "./local-offer.js";
import { type ModelStatus, probeModel } from "./model-probe.js";
import type { SessionFlags } from "./session-options.js";

export interface ChatSetup {
  gate: Toolgate;
  model: ChatModel;
  session: AgentSession;
  broker: ConfirmationBroker;
  transcript: Transcript;
  host: SessionHost;
  /** The start-up model check. */
  status: ModelStatus;
  /** Switches the session and the sub-agents it starts to another model on the same server; returns its check. */
  switchModel(name: string): Promise<ModelStatus>;
  agent?: string;
  close(): Promise<void>;
}

/** Builds everything a session needs. Model and agent problems are ConfigErrors (exit 2). */
export async function setupSession(
  ctx: CliContext,
  flags: SessionFlags,
  person: Confirm,
  onEvent: (event: LoopEvent) => void,
  how: {
    command: "chat" | "run";
    refusal?: string;
    resume?: { session?: string };
    /** Asks a person whether to use (or pull) the local model when no server answers; absent: never. */
    offerLocal?: (question: string) => Promise<boolean>;
  },
): Promise<ChatSetup> {
  const gate = await ctx.gate();
  const root = gate.roots[0]!;
  let settings = resolveLlmSettings(
    gate.settings.llm,
    {
      ...(flags.provider ? { provider: flags.provider } : {}),
      ...(flags.model ? { model: flags.model } : {}),
      ...(flags["base-url"] ? { baseUrl: flags["base-url"] } : {}),
      ...(flags.temperature !== undefined ? { temperature: flags.temperature } : {}),
      ...(flags["max-tokens"] !== undefined ? { maxTokens: flags["max-tokens"] } : {}),
      ...(flags.think !== undefined ? { think: flags.think } : {}),
      ...(flags["context-window"] !== undefined ? { contextWindow: flags["context-window"] } : {}),
      ...(flags["timeout-ms"] !== undefined ? { timeoutMs: flags["timeout-ms"] } : {}),
    },
    ctx.io.env,
  );
  let model = createChatModel(settings);
  // Before the first task: is the server there, with the model; its window; can it call tools natively.
  let status = await probeModel(model, settings);
  if (
    status.error?.kind === "unreachable" &&
    how.offerLocal &&
    !flags.provider &&
    !gate.config.llm?.provider
  ) {
    const local = await offerLocalModel(ctx, how.offerLocal, settings);
    if (local) {
      settings = local;
      model = createChatModel(settings);
      status = await probeModel(model, settings);
    }
  }
  const maxSteps = parseMaxSteps(flags["max-steps"]);
  const routing = flags["no-routing"] ? false : (flags.routing ?? gate.settings.planner.routing ?? false);
  const defaultTool = gate.settings.planner.defaultTool;
  const warn = (m: string) => ctx.io.stderr(`toolgate: warning: ${m}\n`);
  // The session's calls bring the broker's `confirm` with them (loop/run-calls.ts); the bus is not involved.
  const broker = new ConfirmationBroker(person, how.refusal);
  const dir = sessionsDir(root);
  // The window: [llm] context_window, else what the server states (llm/window.ts); the banner says which.
  const contextWindow = status.window?.tokens;
  const common = {
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(contextWindow ? { contextWindow } : {}),
    ...(settings.options?.maxTokens ? { maxReplyTokens: settings.options.maxTokens } : {}),
    routing,
    ...(defaultTool ? { defaultTool } : {}),
  };
  const runner = createAgentRunner({
    gate,
    model,
    root,
    sessionsDir: dir,
    broker,
    onEvent,
    onWarning: warn,
    ...common,
    ...(status.tools === false ? { nativeTools: false } : {}),
  });
  const host = await attachToolPool(gate, { root, runner, logger: { warn } });
  let scope: Awaited<ReturnType<SessionHost["resolveAgent"]>> | undefined;
  if (flags.agent) scope = await host.resolveAgent(flags.agent, 0);
  const label = flags.agent ? `${how.command}-${flags.agent}` : how.command;
  let transcript: Transcript;
  let history: ChatMessage[] | undefined;
  let flow: FlowSession | undefined;
  if (how.resume) {
    // Continue a saved chat: its conversation comes back, and new records go to the same file.
    const file = await findTranscript(ctx, how.resume.session, `-${label}-`);
    try {
      const records = await readTranscript(file);
      history = historyOf(records);
      // The resumed conversation's context label comes back with it (docs/injection.md).
      flow = flowOf(records);
    } catch (error) {
      throw new UsageError(`cannot resume: ${(error as Error).message}`);
    }
    transcript = Transcript.open(file, warn);
  } else transcript = await Transcript.create(dir, label, warn);
  const session = new AgentSession({
    gate,
    model,
    root,
    broker,
    transcript,
    onEvent,
    ...common,
    ...(status.tools === false ? { nativeTools: false } : {}),
    ...(history ? { history } : {}),
    ...(flow ? { flow } : {}),
    ...(scope ? { scope: scope.scope, agent: scope.agent.name, instructions: scope.agent.instructions } : {}),
  });
  const setup: ChatSetup = {
    gate,
    model,
    session,
    broker,
    transcript,
    host,
    status,
    async switchModel(name: string) {
      const next = createChatModel({ ...settings, model: name });
      const checked = await probeModel(next, settings);
      if (!checked.error) {
        const window = checked.window?.tokens;
        session.useModel(next, window);
        runner.useModel(next, {
          ...(checked.tools === false ? { nativeTools: false } : {}),
          ...(window ? { contextWindow: window } : {}),
        });
        setup.model = next;
      }
      return checked;
    },
    ...(flags.agent ? { agent: flags.agent } : {}),
    async close() {
      await transcript.flush();
      await host.close();
    },
  };
  return setup;
}

function parseMaxSteps(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--max-steps must be a whole number ≥ 1, not ${text}`);
  return n;
}
