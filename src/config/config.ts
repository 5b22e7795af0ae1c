/**
 * @module config/config
 * `.toolgate/config.toml`: settings other than policy (web allow-list, search backend, shell, shell sandbox,
 * limits, audit, Jira/Confluence, the model). Validated strictly: an unknown section or key, or a value of the wrong type,
 * is a ConfigError naming the file and the key — a typo never silently turns a setting off.
 */
import { readFile } from "node:fs/promises";
import { parse as parseToml } from "smol-toml";
import { ConfigError } from "../core/index.js";

/** The settings, as the library uses them (all optional). */
export interface ToolgateConfig {
  web?: { allow_hosts?: string[]; timeout_ms?: number; max_bytes?: number };
  search?: {
    backend?: "duckduckgo" | "searxng" | "brave";
    url?: string;
    api_key_env?: string;
    timeout_ms?: number;
  };
  shell?: { env?: string[]; timeout_ms?: number; max_output_bytes?: number };
  files?: { protected?: string[]; max_file_bytes?: number };
  limits?: { max_chars?: number; max_lines?: number };
  audit?: { file?: string };
  confirm?: { timeout_ms?: number };
  jira?: { base_url?: string; token_env?: string; email_env?: string; project_keys?: string[] };
  confluence?: { base_url?: string; token_env?: string; email_env?: string };
  llm?: {
    provider?: string;
    base_url?: string;
    model?: string;
    api_key_env?: string;
    timeout_ms?: number;
    max_retries?: number;
    context_window?: number;
    temperature?: number;
    max_tokens?: number;
    think?: boolean | string;
    keep_alive?: string | number;
    tool_choice?: string;
    parallel_tool_calls?: boolean;
  };
  planner?: { default_tool?: string; routing?: boolean };
  sandbox?: {
    mode?: "auto" | "workspace-write" | "read-only" | "off";
    network?: boolean;
    writable?: string[];
    hidden?: string[];
  };
}

type FieldType = "string" | "string[]" | "integer" | "boolean" | "scalar" | readonly string[];

/** The accepted sections and keys with their types: the one place to add a setting. */
const SCHEMA: Record<string, Record<string, FieldType>> = {
  web: { allow_hosts: "string[]", timeout_ms: "integer", max_bytes: "integer" },
  search: {
    backend: ["duckduckgo", "searxng", "brave"],
    url: "string",
    api_key_env: "string",
    timeout_ms: "integer",
  },
  shell: { env: "string[]", timeout_ms: "integer", max_output_bytes: "integer" },
  files: { protected: "string[]", max_file_bytes: "integer" },
  limits: { max_chars: "integer", max_lines: "integer" },
  audit: { file: "string" },
  confirm: { timeout_ms: "integer" },
  jira: { base_url: "string", token_env: "string", email_env: "string", project_keys: "string[]" },
  confluence: { base_url: "string", token_env: "string", email_env: "string" },
  llm: {
    provider: ["ollama", "openai", "local"],
    base_url: "string",
    model: "string",
    api_key_env: "string",
    timeout_ms: "integer",
    max_retries: "integer",
    context_window: "integer",
    // Checked further (ranges, levels, durations) where the model settings are resolved (llm/settings.ts).
    temperature: "scalar",
    max_tokens: "integer",
    think: "scalar",
    keep_alive: "scalar",
    tool_choice: ["auto", "none", "required"],
    parallel_tool_calls: "boolean",
  },
  planner: { default_tool: "string", routing: "boolean" },
  sandbox: {
    mode: ["auto", "workspace-write", "read-only", "off"],
    network: "boolean",
    writable: "string[]",
    hidden: "string[]",
  },
};

/** Parses and validates config text. `source` names the file in errors. */
export function parseConfig(text: string, source: string): ToolgateConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`${source}: not valid TOML: ${firstLine((error as Error).message)}`, source);
  }
  for (const [section, table] of Object.entries(raw)) {
    const fields = SCHEMA[section];
    if (!fields) {
      throw new ConfigError(
        `${source}: unknown section [${section}] (known: ${Object.keys(SCHEMA).join(", ")})`,
        source,
      );
    }
    if (!isTable(table))
      throw new ConfigError(`${source}: ${section} must be a table ([${section}])`, source);
    for (const [key, value] of Object.entries(table)) {
      const type = fields[key];
      if (!type) {
        throw new ConfigError(
          `${source}: unknown key ${section}.${key} (known in [${section}]: ${Object.keys(fields).join(", ")})`,
          source,
        );
      }
      const problem = checkType(value, type);
      if (problem) throw new ConfigError(`${source}: ${section}.${key} ${problem}`, source);
    }
  }
  return raw as ToolgateConfig;
}

/** Reads and validates a config file. A missing file is an error (the caller decides whether one is required). */
export async function loadConfigFile(path: string): Promise<ToolgateConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${path}: cannot read the config file (${code ?? (error as Error).message})`, path);
  }
  return parseConfig(text, path);
}

function checkType(value: unknown, type: FieldType): string | undefined {
  if (Array.isArray(type)) {
    return typeof value === "string" && type.includes(value)
      ? undefined
      : `must be one of ${type.map((t) => JSON.stringify(t)).join(", ")}, not ${JSON.stringify(value)}`;
  }
  switch (type) {
    case "string":
      return typeof value === "string" ? undefined : `must be a string`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `must be true or false`;
    case "integer":
      return (typeof value === "number" || typeof value === "bigint") &&
        Number.isInteger(Number(value)) &&
        Number(value) >= 0
        ? undefined
        : `must be a whole number ≥ 0`;
    case "scalar":
      return ["string", "number", "boolean"].includes(typeof value)
        ? undefined
        : "must be a string, number or boolean";
    case "string[]":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? undefined
        : `must be an array of strings`;
  }
  return undefined;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function firstLine(s: string): string {
  return s.split("\n")[0] ?? s;
}
