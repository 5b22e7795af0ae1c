/**
 * @module mcp-client/config
 * The external MCP servers of a project, read from the files other MCP hosts write (`.mcp.json`,
 * `.vscode/mcp.json`, `.cursor/mcp.json`, `.gemini/settings.json`; see ./hosts.ts), validated (wrong types and
 * unset variables are errors naming the file and the server; keys of other hosts are noted and ignored) and
 * resolved into ready server configurations.
 */
import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseEnv } from "node:util";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { ConfigError } from "../core/index.js";
import { isPlainObject, readPlainFile, readPlainFileSync, whyUnread } from "../utils/index.js";
import { type ExpandContext, ExpandError, expandValue } from "./expand.js";
import { DEFAULT_HOST_FILE, MCP_HOST_FILES, type McpHostFile, TRUST_GRANTING_KEYS } from "./hosts.js";

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

interface RemoteConfig extends CommonConfig {
  url: string;
  headers: Record<string, string>;
}

/** A server reached over streamable HTTP. */
export interface HttpServerConfig extends RemoteConfig {
  type: "http";
}

/** A server reached over the older HTTP+SSE transport (the SDK's SSE client). */
export interface SseServerConfig extends RemoteConfig {
  type: "sse";
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig | SseServerConfig;

/** A server entry that could not be used, with the reason (file and server named in `message`). */
export interface McpConfigProblem {
  server: string;
  message: string;
  /** The transport the entry asks for, as far as it can be told (`url` or an HTTP `type` → http). */
  type?: "stdio" | "http" | "sse";
}

/** Something toolgate read but does not act on (a key of another host, an unsupported VS Code input). */
export interface McpConfigNote {
  file: string;
  server?: string;
  message: string;
}

/** One file toolgate looked for, in reading order. */
export interface McpConfigSource {
  file: string;
  /** The host whose format it is. */
  host: string;
  /** False when the project has no such file. */
  found: boolean;
  /** Servers this file defines that are used (valid or not; not shadowed). */
  servers: string[];
  /** Servers this file defines that an earlier file already named: the earlier one wins. */
  shadowed: string[];
  /** sha256 of the bytes read (hex), when found: what workspace trust compares with what it recorded. */
  sha256?: string;
}

/** The result of reading a project's MCP configuration files. */
export interface McpConfigFile {
  /** The first file found, or undefined when the project has none. */
  file?: string;
  /** Every file looked for, in reading order (the first to name a server wins). */
  sources: McpConfigSource[];
  servers: Record<string, McpServerConfig>;
  /** The file each server (valid or not) came from. */
  origins: Record<string, string>;
  problems: McpConfigProblem[];
  notes: McpConfigNote[];
  /** sha256 over the files' bytes ("" without any file): pools compare it to notice edits. */
  hash: string;
}

export interface ParseOptions {
  /** Variables `${VAR}` expands from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative `cwd` and `envFile` values are resolved, and `${workspaceFolder}`. Default: the file's directory. */
  baseDir?: string;
  /** The host format the file is in. Default: `.mcp.json`'s. */
  host?: McpHostFile;
  /**
   * The workspace the file belongs to: an `envFile` inside it is refused. Trust binds the MCP file's bytes, not
   * the variables file's, so a later change to it alone (a `git pull`) would hand a trusted server new
   * variables (`NODE_OPTIONS=--require …`) unreviewed. {@link loadMcpConfig} sets it to the root.
   */
  workspaceRoot?: string;
}

/** What one file yields. */
export interface ParsedMcpConfig {
  servers: Record<string, McpServerConfig>;
  problems: McpConfigProblem[];
  notes: McpConfigNote[];
}

const COMMON_KEYS = ["type", "timeout", "enabled", "disabled", "includeTools", "excludeTools"];
const STDIO_KEYS = new Set([...COMMON_KEYS, "command", "args", "env", "envFile", "cwd"]);
const HTTP_KEYS = new Set([...COMMON_KEYS, "url", "httpUrl", "headers"]);
const HTTP_TYPES = new Set(["http", "streamable-http", "streamableHttp"]);

/** The `.mcp.json` of a project root (the first file read). */
export function mcpConfigPath(root: string): string {
  return join(root, ".mcp.json");
}

/** Every MCP configuration file of a project, in reading order. */
export function mcpConfigPaths(root: string): { file: string; host: McpHostFile }[] {
  return MCP_HOST_FILES.map((host) => ({ file: join(root, host.path), host }));
}

/**
 * Reads the project's MCP configuration files ({@link MCP_HOST_FILES}: `.mcp.json`, `.vscode/mcp.json`,
 * `.cursor/mcp.json`, `.gemini/settings.json`), in that order; the first file to name a server wins. Missing
 * files are skipped; a file that does not parse or whose top level is wrong throws {@link ConfigError}; a bad
 * server entry becomes a problem and is left out.
 */
export async function loadMcpConfig(root: string, options: ParseOptions = {}): Promise<McpConfigFile> {
  const result: McpConfigFile = {
    sources: [],
    servers: {},
    origins: {},
    problems: [],
    notes: [],
    hash: "",
  };
  const hash = createHash("sha256");
  let any = false;
  for (const { file, host } of mcpConfigPaths(root)) {
    const source: McpConfigSource = { file, host: host.host, found: false, servers: [], shadowed: [] };
    result.sources.push(source);
    let bytes: Buffer;
    try {
      bytes = await readPlainFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") continue;
      throw new ConfigError(
        `${file}: cannot read: ${code === "ENOTPLAIN" ? whyUnread(error) : (error as Error).message}`,
        file,
      );
    }
    source.found = true;
    source.sha256 = hashBytes(bytes);
    any = true;
    result.file ??= file;
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
    const parsed = parseMcpConfig(bytes.toString("utf8"), file, {
      baseDir: root,
      host,
      workspaceRoot: root,
      ...options,
    });
    result.notes.push(...parsed.notes);
    const names = [...Object.keys(parsed.servers), ...parsed.problems.map((p) => p.server)].sort();
    for (const name of names) {
      if (result.origins[name] !== undefined) {
        source.shadowed.push(name);
        continue;
      }
      result.origins[name] = file;
      source.servers.push(name);
      const server = parsed.servers[name];
      if (server) result.servers[name] = server;
      else result.problems.push(...parsed.problems.filter((p) => p.server === name));
    }
  }
  result.notes = result.notes.filter((n) => n.server === undefined || result.origins[n.server] === n.file);
  result.hash = any ? hash.digest("hex") : "";
  return result;
}

/** The content hash {@link loadMcpConfig} reports, without parsing ("" without any file). */
export async function mcpConfigHash(root: string): Promise<string> {
  const hash = createHash("sha256");
  let any = false;
  for (const { file } of mcpConfigPaths(root)) {
    let bytes: Buffer;
    try {
      bytes = await readPlainFile(file);
    } catch (error) {
      // A file that is there but not read still changes the hash: a FIFO in place of .mcp.json is not "none".
      if ((error as NodeJS.ErrnoException).code !== "ENOTPLAIN") continue;
      bytes = Buffer.from(`unread: ${whyUnread(error)}`);
    }
    any = true;
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return any ? hash.digest("hex") : "";
}

/** What identifies a version of the files cheaply: sizes and mtimes, or "" when there is none. */
export async function mcpConfigStamp(root: string): Promise<string> {
  // Asked before every proxied call. A few stat calls without a thread-pool wait each, and no error object
  // for each host's file that is absent (most are): that was most of what a proxied call cost us.
  const parts: string[] = [];
  for (const { file } of mcpConfigPaths(root)) {
    const s = statSync(file, { throwIfNoEntry: false });
    if (s) parts.push(`${file}:${s.size}:${s.mtimeMs}`);
  }
  return parts.join("|");
}

export function hashBytes(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The server entries of one MCP configuration file as written (nothing expanded or validated), and notes on
 * top-level keys toolgate ignores. Throws {@link ConfigError} when the text is not JSON (with comments) or
 * its top level is wrong.
 */
export function serverEntries(
  text: string,
  file: string,
  host: McpHostFile = DEFAULT_HOST_FILE,
): { raw: Record<string, unknown>; notes: McpConfigNote[] } {
  const errors: ParseError[] = [];
  const json: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw new ConfigError(
      `${file}: not valid JSON: ${printParseErrorCode(first.error)} at offset ${first.offset}`,
      file,
    );
  }
  if (!isPlainObject(json)) throw new ConfigError(`${file}: the top level must be a JSON object`, file);
  const notes: McpConfigNote[] = [];
  if (json.mcpServers !== undefined && json.servers !== undefined)
    throw new ConfigError(`${file}: both "mcpServers" and "servers": keep one`, file);
  const key = json.servers !== undefined ? "servers" : "mcpServers";
  for (const k of Object.keys(json)) {
    if (k === key) continue;
    if (k === "inputs")
      notes.push({
        file,
        message: `"inputs" (VS Code prompts) are not supported; set environment variables instead`,
      });
    else if (!host.foreignTopLevel)
      notes.push({ file, message: `unknown top-level key ${JSON.stringify(k)} ignored` });
  }
  const raw = json[key] ?? {};
  if (!isPlainObject(raw)) throw new ConfigError(`${file}: "${key}" must be an object`, file);
  return { raw, notes };
}

/**
 * Parses the text of one MCP configuration file: `{"mcpServers": {...}}` or VS Code's `{"servers": {...}}`,
 * JSON with comments and trailing commas allowed.
 */
export function parseMcpConfig(text: string, file: string, options: ParseOptions = {}): ParsedMcpConfig {
  const host = options.host ?? DEFAULT_HOST_FILE;
  const { raw, notes } = serverEntries(text, file, host);
  const servers: Record<string, McpServerConfig> = {};
  const problems: McpConfigProblem[] = [];
  for (const name of Object.keys(raw).sort()) {
    try {
      servers[name] = normalizeServerConfig(name, raw[name], file, {
        ...options,
        host,
        onNote: (message) => notes.push({ file, server: name, message }),
      });
    } catch (error) {
      const type = entryType(raw[name], host);
      problems.push({ server: name, message: (error as Error).message, ...(type ? { type } : {}) });
    }
  }
  return { servers, problems, notes };
}

/** The transport a (possibly invalid) entry names: what `mcp list` shows beside its problem. */
export function entryType(
  entry: unknown,
  host: McpHostFile = DEFAULT_HOST_FILE,
): "stdio" | "http" | "sse" | undefined {
  if (!isPlainObject(entry)) return undefined;
  if (entry.type === "stdio") return "stdio";
  if (entry.type === "sse") return "sse";
  if (typeof entry.type === "string" && HTTP_TYPES.has(entry.type)) return "http";
  if (entry.type !== undefined) return undefined;
  if (entry.httpUrl !== undefined) return "http";
  if (entry.url !== undefined) return host.bareUrl;
  if (entry.command !== undefined) return "stdio";
  return undefined;
}

/**
 * The key whose address a remote entry connects to: `httpUrl` for streamable HTTP when the entry has one,
 * else `url`. The loader and the trust review both ask this, so the review names the address used.
 * @example remoteUrlKey({ type: "sse", httpUrl: "https://a", url: "https://b" }, "sse") // "url"
 */
export function remoteUrlKey(entry: Record<string, unknown>, transport: "http" | "sse"): "httpUrl" | "url" {
  return entry.httpUrl !== undefined && transport === "http" ? "httpUrl" : "url";
}

/** Options for one entry: the file's, plus where notes about ignored keys go. */
export interface NormalizeOptions extends ParseOptions {
  onNote?: (message: string) => void;
}

/**
 * Validates one server entry (from a file or added through the API) and resolves it: variables expanded in
 * every string, `envFile` read, `cwd` made absolute. Keys of other hosts are ignored (reported through
 * `onNote`), never a reason to refuse the server. Throws {@link ConfigError} naming `where` and the server.
 */
export function normalizeServerConfig(
  name: string,
  raw: unknown,
  where: string,
  options: NormalizeOptions = {},
): McpServerConfig {
  const at = `${where}: server ${JSON.stringify(name)}`;
  const fail = (message: string): never => {
    throw new ConfigError(`${at}: ${message}`, where);
  };
  if (name.length === 0) fail("a server needs a non-empty name");
  if (!isPlainObject(raw)) return fail("must be an object");
  const host = options.host ?? DEFAULT_HOST_FILE;
  const baseDir = options.baseDir ?? process.cwd();
  const ctx: ExpandContext = {
    env: options.env ?? process.env,
    workspaceFolder: baseDir,
    bareDollar: host.bareDollar,
  };
  const expand = (value: string, key: string): string => {
    try {
      return expandValue(value, ctx);
    } catch (error) {
      if (error instanceof ExpandError) return fail(`${key}: ${error.message}`);
      throw error;
    }
  };
  const type = entryType(raw, host);
  if (raw.type !== undefined && type === undefined)
    fail(`"type" must be "stdio", "http" (or "streamable-http") or "sse", not ${JSON.stringify(raw.type)}`);
  const transport = type ?? "stdio";
  const isRemote = transport !== "stdio";
  const allowed = isRemote ? HTTP_KEYS : STDIO_KEYS;
  for (const key of Object.keys(raw)) {
    if (allowed.has(key)) continue;
    if (TRUST_GRANTING_KEYS.has(key))
      options.onNote?.(`"${key}" ignored: toolgate's policy decides which calls run`);
    else
      options.onNote?.(
        `unknown key ${JSON.stringify(key)} ignored for a${isRemote ? ` ${transport}` : " stdio"} server`,
      );
  }
  const enabled = raw.enabled === undefined ? undefined : bool(raw.enabled, "enabled", fail);
  const disabled = raw.disabled === undefined ? undefined : bool(raw.disabled, "disabled", fail);
  if (enabled !== undefined && disabled !== undefined && enabled === disabled)
    fail(`"enabled" and "disabled" contradict each other`);
  const common: CommonConfig = {
    timeoutMs: raw.timeout === undefined ? DEFAULT_MCP_TIMEOUT_MS : positiveInt(raw.timeout, "timeout", fail),
    enabled: enabled ?? (disabled === undefined ? true : !disabled),
  };
  if (raw.includeTools !== undefined)
    common.includeTools = stringList(raw.includeTools, "includeTools", fail);
  if (raw.excludeTools !== undefined)
    common.excludeTools = stringList(raw.excludeTools, "excludeTools", fail);
  if (isRemote) {
    const urlKey = remoteUrlKey(raw, transport);
    if (urlKey === "httpUrl" && raw.url !== undefined) options.onNote?.(`"url" ignored: "httpUrl" is used`);
    const rawUrl = raw[urlKey];
    if (typeof rawUrl !== "string" || rawUrl === "") return fail(`"${urlKey}" must be a non-empty string`);
    const url = expand(rawUrl, urlKey);
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      fail(`"${urlKey}" is not a valid URL: ${JSON.stringify(url)}`);
    }
    if (parsed && parsed.protocol !== "http:" && parsed.protocol !== "https:")
      fail(`"${urlKey}" must be http or https, not ${parsed.protocol}`);
    const headers = stringMap(raw.headers ?? {}, "headers", fail);
    for (const key of Object.keys(headers)) headers[key] = expand(headers[key]!, `headers.${key}`);
    return transport === "sse"
      ? { type: "sse", url, headers, ...common }
      : { type: "http", url, headers, ...common };
  }
  if (typeof raw.command !== "string" || raw.command === "")
    return fail(`"command" must be a non-empty string`);
  const args = raw.args === undefined ? [] : stringList(raw.args, "args", fail);
  const vars: Record<string, string> = {};
  if (raw.envFile !== undefined) {
    if (typeof raw.envFile !== "string" || raw.envFile === "") fail(`"envFile" must be a non-empty string`);
    const path = expand(raw.envFile as string, "envFile");
    const file = isAbsolute(path) ? path : resolve(baseDir, path);
    if (options.workspaceRoot !== undefined && isInside(options.workspaceRoot, file))
      return fail(
        `envFile ${file} is inside the workspace: trust does not cover its bytes, so a server is not started with variables from it — set them in "env" (\${VAR} takes the host's)`,
      );
    let text: string;
    try {
      text = readPlainFileSync(file).toString("utf8");
    } catch (error) {
      return fail(`envFile ${file}: cannot read: ${whyUnread(error)}`);
    }
    Object.assign(vars, parseEnv(text));
  }
  const own = stringMap(raw.env ?? {}, "env", fail);
  // `env` wins over `envFile`, as in VS Code.
  for (const key of Object.keys(own)) vars[key] = expand(own[key]!, `env.${key}`);
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
    config.cwd = isAbsolute(cwd) ? cwd : resolve(baseDir, cwd);
  }
  return config;
}

/**
 * Expands `${VAR}`, `${VAR:-default}` and `${env:VAR}`; `$$` is not special. Calls `missing` for an unset
 * variable (other failures, such as a VS Code `${input:...}`, throw {@link ExpandError}).
 */
export function expandVars(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: (name: string) => never,
): string {
  return value.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (m) => {
    try {
      return expandValue(m, { env });
    } catch (error) {
      const name = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)/.exec(m)![1]!;
      if (error instanceof ExpandError) return missing(name);
      throw error;
    }
  });
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

/** Whether `path` is `root` or below it, also once links in either are resolved. */
function isInside(root: string, path: string): boolean {
  const within = (r: string, p: string) => {
    const rel = relative(r, p);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return within(root, path) || within(real(root), real(path));
}
