/**
 * @module cli/chat/session-options
 * The flags of `toolgate chat` and `toolgate run` as tables: they parse the command line, write each
 * command's `--help` and its usage line (cli/usage.ts). Apart from the commands' modules, so `--help` loads
 * no model client.
 */
import { LLM_PROVIDERS } from "../../config/choices.js";
import type { OptionTable } from "../options.js";

/** Flags both commands take. */
export const SESSION_OPTIONS = {
  agent: {
    type: "string",
    value: "NAME",
    description: "act as the agent in .toolgate/agents/NAME.md (its tools only)",
  },
  provider: {
    type: "string",
    choices: LLM_PROVIDERS,
    description:
      "ollama, openai, or local (a GGUF model run in-process: docs/local-model.md) ([llm] provider)",
  },
  model: { type: "string", value: "M", description: "the model's name ([llm] model)" },
  "base-url": { type: "string", value: "URL", description: "the model server's address ([llm] base_url)" },
  temperature: { type: "string", value: "T", description: "sampling temperature, 0 to 2" },
  "max-tokens": { type: "string", value: "N", description: "most tokens in one reply" },
  think: { type: "string", value: "true|false|low|medium|high", description: "how much the model thinks" },
  "context-window": { type: "string", value: "N", description: "the model's context window in tokens" },
  "timeout-ms": { type: "string", value: "N", description: "how long one model request may take" },
  "max-steps": { type: "string", value: "N", description: "most model steps for one task" },
  routing: { type: "boolean", description: "fan a routing plan out into one call per sub-question" },
  "no-routing": { type: "boolean", description: "do not (overrides [planner] routing)" },
  yes: { type: "boolean", short: "y", description: "approve every ask (never overrides a deny)" },
  "no-thinking": { type: "boolean", description: "hide the model's thinking (it stays in the transcript)" },
} as const satisfies OptionTable;

export type SessionFlags = {
  provider?: string;
  model?: string;
  "base-url"?: string;
  temperature?: string;
  "max-tokens"?: string;
  think?: string;
  "context-window"?: string;
  "timeout-ms"?: string;
  agent?: string;
  "max-steps"?: string;
  routing?: boolean;
  "no-routing"?: boolean;
  yes?: boolean;
  "no-thinking"?: boolean;
};

/** `toolgate chat`'s flags. */
export const CHAT_OPTIONS = {
  resume: {
    type: "boolean",
    description: "continue a saved chat (the newest, or the SESSION given) in the same transcript",
  },
  ...SESSION_OPTIONS,
} as const satisfies OptionTable;

/** `toolgate run`'s flags. */
export const RUN_OPTIONS = {
  ...SESSION_OPTIONS,
  quiet: { type: "boolean", short: "q", description: "no progress lines on stderr, only the answer" },
} as const satisfies OptionTable;
