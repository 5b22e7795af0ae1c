/**
 * @module mcp/config
 * `.mcp.json` — the external MCP servers of a project, in the format other MCP hosts use — read, validated
 * strictly (unknown keys, wrong types and unset `${VAR}`s are errors naming the file and the server) and
 * resolved into ready server configurations.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { ConfigError } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";

/** The request timeout when a server sets none (ms). */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

interface CommonConfig {
  /** Request timeout for this server (ms), `timeout` in the file. */
  timeoutMs: number;
  /** `false` keeps the server configured but neither started nor listed. */
  enabled: boolean;
  /** Original tool names to keep (all when absent). */
  includeTools?: string[];
  /** Original tool names to drop (wins over `includeTools`). */
  excludeTools?: string[];
}

/** A server started as a child process speaking MCP over stdin/stdout. */
export interface StdioServerConfig extends CommonConfig {
  type: "stdio";
  command: string;
  args: string[];
  /** Added to the SDK's minimal inherited environment (HOME, PATH, ...); nothing else leaks in. */
  env: Record<string, string>;
  /** Absolute working directory (relative values are resolved against the project root). */
  cwd?: string;
}

/** A server reached over streamable HTTP. */
export interface HttpServerConfig extends CommonConfig {
  type: "http";
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** A server entry that could not be used, with the reason (file and server named in `message`). */
export interface McpConfigProblem {
  server: string;
  message: string;
  /** The transport the entry asks for, as far as it can be told (`url` or an HTTP `type` → http). */
  type?: "stdio" | "http";
}

/** The result of reading a project's `.mcp.json`. */
export interface McpConfigFile {
  /** The file read, or undefined when the project has none. */
  file?: string;
  servers: Record<string, McpServerConfig>;
  problems: McpConfigProblem[];
  /** sha256 of the file's bytes ("" without a file): pools compare it to notice edits. */
  hash: string;
}

export interface ParseOptions {
  /** Variables `${VAR}` expands from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative `cwd` values are resolved. Default: the file's directory. */
  baseDir?: string;
}

const STDIO_KEYS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "timeout",
  "enabled",
  "includeTools",
  "excludeTools",
]);
const HTTP_KEYS = new Set(["type", "url", "headers", "timeout", "enabled", "includeTools", "excludeTools"]);

/** The `.mcp.json` of a project root. */
export function mcpConfigPath(root: string): string {
  return join(root, ".mcp.json");
}

/**
 * Reads `<root>/.mcp.json`. A missing file is an empty configuration; a file that is not JSON or whose
 * top level is wrong throws {@link ConfigError}; a bad server entry becomes a problem and is left out.
 */
export async function loadMcpConfig(root: string, options: ParseOptions = {}): Promise<McpConfigFile> {
  const file = mcpConfigPath(root);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: {}, problems: [], hash: "" };
    throw new ConfigError(`${file}: cannot read: ${(error as Error).message}`, file);
  }
  const parsed = parseMcpConfig(bytes.toString("utf8"), file, { baseDir: root, ...options });
  return { file, ...parsed, hash: hashBytes(bytes) };
}

/** What identifies a version of the file cheaply: size and mtime, or "" when absent. */
export async function mcpConfigStamp(root: string): Promise<string> {
  try {
    const s = await stat(mcpConfigPath(root));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "";
  }
}

export function hashBytes(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Parses the text of an MCP configuration file (`{"mcpServers": {...}}`). */
export function parseMcpConfig(
  text: string,
  file: string,
  options: ParseOptions = {},
): { servers: Record<string, McpServerConfig>; problems: McpConfigProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid JSON: ${(error as Error).message}`, file);
  }
  if (!isPlainObject(json)) throw new ConfigError(`${file}: the top level must be a JSON object`, file);
  const unknown = Object.keys(json).filter((k) => k !== "mcpServers");
  if (unknown.length > 0)
    throw new ConfigError(`${file}: unknown key ${JSON.stringify(unknown[0])} (expected "mcpServers")`, file);
  const raw = json.mcpServers ?? {};
  if (!isPlainObject(raw)) throw new ConfigError(`${file}: "mcpServers" must be an object`, file);
  const servers: Record<string, McpServerConfig> = {};
  const problems: McpConfigProblem[] = [];
  for (const name of Object.keys(raw).sort()) {
    try {
      servers[name] = normalizeServerConfig(name, raw[name], file, options);
    } catch (error) {
      const type = entryType(raw[name]);
      problems.push({ server: name, message: (error as Error).message, ...(type ? { type } : {}) });
    }
  }
  return { servers, problems };
}

/** The transport a (possibly invalid) entry names: what `mcp list` shows beside its problem. */
function entryType(entry: unknown): "stdio" | "http" | undefined {
  if (!isPlainObject(entry)) return undefined;
  if (entry.type === "stdio") return "stdio";
  if (entry.type === "http" || entry.type === "streamable-http") return "http";
  if (entry.type !== undefined) return undefined;
  if (entry.url !== undefined) return "http";
  if (entry.command !== undefined) return "stdio";
  return undefined;
}

/**
 * Validates one server entry (from the file or added through the API) and resolves it: `${VAR}` expanded
 * in every string, `cwd` made absolute. Throws {@link ConfigError} naming `where` and the server.
 */
export function normalizeServerConfig(
  name: string,
  raw: unknown,
  where: string,
  options: ParseOptions = {},
): McpServerConfig {
  const at = `${where}: server ${JSON.stringify(name)}`;
  const fail = (message: string): never => {
    throw new ConfigError(`${at}: ${message}`, where);
  };
  if (name.length === 0) fail("a server needs a non-empty name");
  if (!isPlainObject(raw)) return fail("must be an object");
  const env = options.env ?? process.env;
  const expand = (value: string, key: string) =>
    expandVars(value, env, (v) => fail(`${key}: environment variable ${v} is not set`));
  const type = raw.type ?? (raw.url !== undefined ? "http" : "stdio");
  if (type === "sse") fail(`type "sse" is not supported; use a streamable HTTP url`);
  if (type !== "stdio" && type !== "http" && type !== "streamable-http")
    fail(`"type" must be "stdio" or "http", not ${JSON.stringify(type)}`);
  const isHttp = type !== "stdio";
  const allowed = isHttp ? HTTP_KEYS : STDIO_KEYS;
  for (const key of Object.keys(raw)) {
    if (!allowed.has(key))
      fail(`unknown key ${JSON.stringify(key)} for a ${isHttp ? "streamable HTTP" : "stdio"} server`);
  }
  const common: CommonConfig = {
    timeoutMs: raw.timeout === undefined ? DEFAULT_MCP_TIMEOUT_MS : positiveInt(raw.timeout, "timeout", fail),
    enabled: raw.enabled === undefined ? true : bool(raw.enabled, "enabled", fail),
  };
  if (raw.includeTools !== undefined)
    common.includeTools = stringList(raw.includeTools, "includeTools", fail);
  if (raw.excludeTools !== undefined)
    common.excludeTools = stringList(raw.excludeTools, "excludeTools", fail);
  if (isHttp) {
    if (typeof raw.url !== "string" || raw.url === "") return fail(`"url" must be a non-empty string`);
    const url = expand(raw.url, "url");
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      fail(`"url" is not a valid URL: ${JSON.stringify(url)}`);
    }
    if (parsed && parsed.protocol !== "http:" && parsed.protocol !== "https:")
      fail(`"url" must be http or https, not ${parsed.protocol}`);
    const headers = stringMap(raw.headers ?? {}, "headers", fail);
    for (const key of Object.keys(headers)) headers[key] = expand(headers[key]!, `headers.${key}`);
    return { type: "http", url, headers, ...common };
  }
  if (typeof raw.command !== "string" || raw.command === "")
    return fail(`"command" must be a non-empty string`);
  const args = raw.args === undefined ? [] : stringList(raw.args, "args", fail);
  const vars = stringMap(raw.env ?? {}, "env", fail);
  for (const key of Object.keys(vars)) vars[key] = expand(vars[key]!, `env.${key}`);
  const config: StdioServerConfig = {
    type: "stdio",
    command: expand(raw.command, "command"),
    args: args.map((a, i) => expand(a, `args[${i}]`)),
    env: vars,
    ...common,
  };
  if (raw.cwd !== undefined) {
    if (typeof raw.cwd !== "string" || raw.cwd === "") fail(`"cwd" must be a non-empty string`);
    const cwd = expand(raw.cwd as string, "cwd");
    config.cwd = isAbsolute(cwd) ? cwd : resolve(options.baseDir ?? process.cwd(), cwd);
  }
  return config;
}

/** Expands `${VAR}` and `${VAR:-default}`; `$$` is not special. Calls `missing` for an unset variable. */
export function expandVars(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: (name: string) => never,
): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      if (found === "") return "";
      return missing(name);
    },
  );
}

function positiveInt(value: unknown, key: string, fail: (m: string) => never): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
    fail(`"${key}" must be a positive whole number of milliseconds`);
  return value as number;
}

function bool(value: unknown, key: string, fail: (m: string) => never): boolean {
  if (typeof value !== "boolean") fail(`"${key}" must be true or false`);
  return value as boolean;
}

function stringList(value: unknown, key: string, fail: (m: string) => never): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    fail(`"${key}" must be an array of strings`);
  return [...(value as string[])];
}

function stringMap(value: unknown, key: string, fail: (m: string) => never): Record<string, string> {
  if (!isPlainObject(value) || Object.values(value).some((v) => typeof v !== "string"))
    fail(`"${key}" must be an object of strings`);
  return { ...(value as Record<string, string>) };
}
