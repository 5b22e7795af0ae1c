/**
 * @module llm/settings
 * Resolves which model to talk to: `[llm]` in `.toolgate/config.toml`, overridden by flags (`--provider`,
 * `--model`, `--base-url`), the API key read only from the environment variable `api_key_env` names.
 * Problems are ConfigErrors whose message says what to set.
 */
import { ConfigError } from "../core/index.js";
import { OLLAMA_DEFAULT_URL } from "./ollama.js";
import type { LlmSettings, ProviderKind } from "./types.js";

/** The `[llm]` section as the config loader returns it. */
export interface LlmConfig {
  provider?: string;
  base_url?: string;
  model?: string;
  api_key_env?: string;
}

/** Flags that override the config. */
export interface LlmFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** The model used when neither config nor flags name one (a small model with tool support). */
export const DEFAULT_OLLAMA_MODEL = "qwen3";
const OPENAI_DEFAULT_URL = "https://api.openai.com/v1";

/**
 * Resolves the settings.
 * @example resolveLlmSettings({ provider: "ollama" }, { model: "llama3.2" }, process.env)
 */
export function resolveLlmSettings(
  config: LlmConfig | undefined,
  flags: LlmFlags,
  env: Readonly<Record<string, string | undefined>>,
): LlmSettings {
  const providerText = flags.provider ?? config?.provider ?? "ollama";
  if (providerText !== "ollama" && providerText !== "openai")
    throw new ConfigError(`unknown model provider ${JSON.stringify(providerText)}: use "ollama" or "openai"`);
  const provider: ProviderKind = providerText;
  const baseUrl = trimSlash(
    flags.baseUrl ?? config?.base_url ?? (provider === "ollama" ? OLLAMA_DEFAULT_URL : OPENAI_DEFAULT_URL),
  );
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw new ConfigError(`the model server address ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  }
  const model = flags.model ?? config?.model ?? (provider === "ollama" ? DEFAULT_OLLAMA_MODEL : undefined);
  if (!model)
    throw new ConfigError(
      'no model is set: add `model = "..."` under [llm] in .toolgate/config.toml, or pass --model',
    );
  const settings: LlmSettings = { provider, model, baseUrl };
  const keyEnv = config?.api_key_env;
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
