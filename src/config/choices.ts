/**
 * @module config/choices
 * The values a config key may take where it is one of a few words, named once: the schema checks them, and
 * the code that acts on them (the model settings, the command's `--provider` flag, the search backends)
 * reads the same lists. No zod here: the command and the model clients use them without loading the schema.
 */

/** `[llm] provider`: Ollama's protocol, an OpenAI-compatible server's, or a GGUF model run in-process. */
export const LLM_PROVIDERS = ["ollama", "openai", "local"] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

/** `[search] backend`: the engines `web_search` can ask. */
export const SEARCH_BACKENDS = ["duckduckgo", "searxng", "brave"] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

/** `[llm] tool_choice`. */
export const TOOL_CHOICES = ["auto", "none", "required"] as const;
export type ToolChoice = (typeof TOOL_CHOICES)[number];

/** `[sandbox] mode`. */
export const SANDBOX_MODES = ["auto", "workspace-write", "read-only", "off"] as const;
