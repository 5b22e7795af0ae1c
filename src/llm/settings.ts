/**
 * @module llm/settings
 * Resolves which model to talk to and how: `[llm]` in `.toolgate/config.toml`, overridden by flags
 * (`--provider`, `--model`, `--base-url`, `--temperature`, `--max-tokens`, `--think`, `--context-window`,
 * `--timeout-ms`), the API key read only from the environment variable `api_key_env` names. Problems are
 * ConfigErrors whose message says what to set.
 */
// The choice lists by file: they load no zod, and the package's root loads this module.
import { LLM_PROVIDERS, TOOL_CHOICES } from "../config/choices.js";
import type { ToolgateSettings } from "../config/index.js";
import { ConfigError } from "../core/index.js";
import { DEFAULT_MODEL } from "../models/index.js";
import { OLLAMA_DEFAULT_URL } from "./ollama.js";
import type { LlmSettings, ModelOptions, ProviderKind } from "./types.js";

/** The `[llm]` section as settings (camelCase; its one definition is the config schema). */
export type LlmConfig = ToolgateSettings["llm"];

/** Flags that override the config (as typed: numbers are checked here). */
export interface LlmFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  temperature?: string;
  maxTokens?: string;
  think?: string;
  contextWindow?: string;
  timeoutMs?: string;
}

const THINK_LEVELS = ["low", "medium", "high"] as const;

/** The model used when neither config nor flags name one (a small model with tool support). */
export const DEFAULT_OLLAMA_MODEL = "qwen3";
const OPENAI_DEFAULT_URL = "https://api.openai.com/v1";

/**
 * Resolves the settings.
 * @example resolveLlmSettings({ provider: "ollama" }, { model: "llama3.2" }, process.env)
 */
export function resolveLlmSettings(
  config: Partial<LlmConfig> | undefined,
  flags: LlmFlags,
  env: Readonly<Record<string, string | undefined>>,
): LlmSettings {
  const providerText = flags.provider ?? config?.provider ?? "ollama";
  if (!isOneOf(LLM_PROVIDERS, providerText))
    throw new ConfigError(
      `unknown model provider ${JSON.stringify(providerText)}: use ${either(LLM_PROVIDERS)}`,
    );
  const provider: ProviderKind = providerText;
  // The local provider runs a model file in this process: there is no server address.
  const baseUrl =
    provider === "local"
      ? ""
      : trimSlash(
          flags.baseUrl ??
            config?.baseUrl ??
            (provider === "ollama"
              ? (ollamaHost(env.OLLAMA_HOST) ?? OLLAMA_DEFAULT_URL)
              : OPENAI_DEFAULT_URL),
        );
  if (provider !== "local") {
    try {
      const url = new URL(baseUrl);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
    } catch {
      throw new ConfigError(`the model server address ${JSON.stringify(baseUrl)} is not an http(s) URL`);
    }
  }
  const model =
    flags.model ??
    config?.model ??
    (provider === "ollama" ? DEFAULT_OLLAMA_MODEL : provider === "local" ? DEFAULT_MODEL : undefined);
  if (!model)
    throw new ConfigError(
      'no model is set: add `model = "..."` under [llm] in .toolgate/config.toml, or pass --model',
    );
  const settings: LlmSettings = { provider, model, baseUrl };
  const timeoutMs =
    wholeNumber(flags.timeoutMs, "--timeout-ms", 1) ?? wholeNumber(config?.timeoutMs, "[llm] timeout_ms", 1);
  if (timeoutMs !== undefined) settings.timeoutMs = timeoutMs;
  const maxRetries = wholeNumber(config?.maxRetries, "[llm] max_retries", 0);
  if (maxRetries !== undefined) settings.maxRetries = maxRetries;
  const contextWindow =
    wholeNumber(flags.contextWindow, "--context-window", 256) ??
    wholeNumber(config?.contextWindow, "[llm] context_window", 256);
  if (contextWindow !== undefined) settings.contextWindow = contextWindow;
  const threads = wholeNumber(config?.threads, "[llm] threads", 1);
  if (threads !== undefined) settings.threads = threads;
  const options = modelOptions(config, flags);
  if (Object.keys(options).length > 0) settings.options = options;
  const keyEnv = config?.apiKeyEnv;
  if (keyEnv) {
    settings.apiKeyEnv = keyEnv;
    const key = env[keyEnv];
    if (!key)
      throw new ConfigError(
        `the API key is missing: set the environment variable ${keyEnv} ([llm] api_key_env)`,
      );
    settings.apiKey = key;
  } else if (provider === "openai" && new URL(baseUrl).hostname === "api.openai.com") {
    throw new ConfigError(
      'api.openai.com needs an API key: set [llm] api_key_env = "OPENAI_API_KEY" and export that variable',
    );
  }
  return settings;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function modelOptions(config: Partial<LlmConfig> | undefined, flags: LlmFlags): ModelOptions {
  const options: ModelOptions = {};
  const temperature = flags.temperature ?? config?.temperature;
  if (temperature !== undefined) {
    const t = Number(temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2)
      throw new ConfigError(`temperature must be a number from 0 to 2, not ${JSON.stringify(temperature)}`);
    options.temperature = t;
  }
  const maxTokens =
    wholeNumber(flags.maxTokens, "--max-tokens", 1) ?? wholeNumber(config?.maxTokens, "[llm] max_tokens", 1);
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  const think = flags.think ?? config?.think;
  if (think !== undefined) {
    if (think === true || think === "true") options.think = true;
    else if (think === false || think === "false") options.think = false;
    else if ((THINK_LEVELS as readonly unknown[]).includes(think))
      options.think = think as ModelOptions["think"];
    else
      throw new ConfigError(
        `think must be true, false, "low", "medium" or "high", not ${JSON.stringify(think)} ([llm] think / --think)`,
      );
  }
  const keepAlive = config?.keepAlive;
  if (keepAlive !== undefined) {
    if (typeof keepAlive === "number" || /^-?\d+(\.\d+)?(ms|s|m|h)?$/.test(String(keepAlive)))
      options.keepAlive = typeof keepAlive === "number" ? keepAlive : String(keepAlive);
    else
      throw new ConfigError(
        `[llm] keep_alive must be a duration such as "5m", "30s", "0" or a number of seconds, not ${JSON.stringify(keepAlive)}`,
      );
  }
  const toolChoice = config?.toolChoice;
  if (toolChoice !== undefined) {
    if (!isOneOf(TOOL_CHOICES, toolChoice))
      throw new ConfigError(
        `[llm] tool_choice must be ${either(TOOL_CHOICES)}, not ${JSON.stringify(toolChoice)}`,
      );
    options.toolChoice = toolChoice;
  }
  if (config?.parallelToolCalls !== undefined) options.parallelToolCalls = config.parallelToolCalls;
  return options;
}

const isOneOf = <T extends string>(choices: readonly T[], value: string): value is T =>
  (choices as readonly string[]).includes(value);

/** `"a", "b" or "c"`. */
const either = (choices: readonly string[]) =>
  `${choices
    .slice(0, -1)
    .map((c) => JSON.stringify(c))
    .join(", ")} or ${JSON.stringify(choices.at(-1))}`;

/** A whole number ≥ `min` from a flag's text or a config value; undefined when absent. */
function wholeNumber(value: string | number | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new ConfigError(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(value)}`);
  return n;
}

/**
 * Ollama's own `OLLAMA_HOST` (`host`, `host:port` or a URL) as a server address; `0.0.0.0`, the address a
 * server listens on, is reached at localhost.
 * @example ollamaHost("gpu-box:11500") // "http://gpu-box:11500"
 */
export function ollamaHost(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  try {
    const url = new URL(withScheme);
    if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
    if (!url.port && withScheme !== text) url.port = "11434";
    return url.href;
  } catch {
    return withScheme;
  }
}
