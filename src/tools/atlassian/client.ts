/**
 * @module tools/atlassian/client
 * What `jira_fetch` and `confluence_fetch` share: settings from config and environment (base URL, token,
 * optional e-mail for Cloud basic auth), GET of a REST path through the SSRF-safe client, and error results
 * that say what went wrong (not found, refused credentials, the server's own messages).
 */
import { ConfigError, errorResult, type ToolResult } from "../../core/index.js";
import {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_TIMEOUT_MS,
  httpError,
  NetError,
  type Resolver,
  safeFetch,
} from "../../net/index.js";

/** Connection settings of one Atlassian product. */
export interface AtlassianDeps {
  /** Jira: `https://acme.atlassian.net`; Confluence Cloud: `https://acme.atlassian.net/wiki`. */
  baseUrl: string;
  /** API token (Cloud, with `email`) or personal access token (Server/Data Center, sent as Bearer). */
  token: string;
  /** With an e-mail, basic auth `email:token` (Atlassian Cloud). */
  email?: string;
  /** Extra private hosts (the base URL's own host is always allowed: an administrator configured it). */
  allowHosts?: readonly string[];
  /** Default: the network client's (`DEFAULT_FETCH_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Default: the network client's (`DEFAULT_FETCH_MAX_BYTES`). */
  maxBytes?: number;
  lookup?: Resolver;
}

/** The `[jira]` / `[confluence]` settings. */
export interface AtlassianSection {
  baseUrl?: string | undefined;
  tokenEnv?: string | undefined;
  emailEnv?: string | undefined;
}

/**
 * Settings from a config section and the environment, or `undefined` when the product is not configured
 * (no base URL or no token): the tool is then not registered.
 * @param product `JIRA` or `CONFLUENCE`: default variables `<P>_BASE_URL`, `<P>_API_TOKEN`, `<P>_EMAIL`.
 * @throws ConfigError when the base URL is not an http(s) URL.
 */
export function atlassianFromEnv(
  product: "JIRA" | "CONFLUENCE",
  section: AtlassianSection | undefined,
  env: Record<string, string | undefined> = process.env,
): AtlassianDeps | undefined {
  const baseUrl = section?.baseUrl ?? env[`${product}_BASE_URL`];
  const token = env[section?.tokenEnv ?? `${product}_API_TOKEN`];
  if (!baseUrl || !token) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`${product.toLowerCase()}.base_url is not a valid URL: ${baseUrl}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(`${product.toLowerCase()}.base_url must be an http or https URL: ${baseUrl}`);
  const email = env[section?.emailEnv ?? `${product}_EMAIL`];
  return email ? { baseUrl, token, email } : { baseUrl, token };
}

/** Base URL without a trailing slash. */
export function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

function authorization(deps: AtlassianDeps): string {
  if (deps.email) return `Basic ${Buffer.from(`${deps.email}:${deps.token}`).toString("base64")}`;
  return `Bearer ${deps.token}`;
}

/** The server's own error text (`errorMessages`, `errors`, `message`), when the body is JSON. */
function serverMessage(body: Buffer): string {
  try {
    const json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    const parts: string[] = [];
    if (Array.isArray(json.errorMessages)) parts.push(...json.errorMessages.map(String));
    if (json.errors && typeof json.errors === "object") parts.push(...Object.values(json.errors).map(String));
    if (typeof json.message === "string") parts.push(json.message);
    return parts.join("; ");
  } catch {
    return "";
  }
}

/** What a GET returns: the parsed JSON, or a result carrying the error. */
export type GetOutcome = { json: unknown; url: string } | { error: ToolResult };

/**
 * GETs `path` (with query) below the base URL and parses JSON. `what` names the object for messages
 * ("Jira issue PROJ-1").
 */
export async function atlassianGet(
  deps: AtlassianDeps,
  path: string,
  what: string,
  signal: AbortSignal,
): Promise<GetOutcome> {
  const base = new URL(trimBase(deps.baseUrl));
  const url = `${trimBase(deps.baseUrl)}${path}`;
  let res: Awaited<ReturnType<typeof safeFetch>>;
  try {
    res = await safeFetch(url, {
      signal,
      timeoutMs: deps.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
      maxBytes: deps.maxBytes ?? DEFAULT_FETCH_MAX_BYTES,
      onTooLarge: "error",
      allowHosts: [base.host, ...(deps.allowHosts ?? [])],
      accept: "application/json",
      headers: { authorization: authorization(deps) },
      lookup: deps.lookup,
    });
  } catch (error) {
    if (error instanceof NetError)
      return { error: errorResult(error.type, error.message, { ...error.toDetails() }) };
    throw error;
  }
  if (res.status >= 400) {
    const details = { ...httpError(res).toDetails() };
    const said = serverMessage(res.body);
    const suffix = said ? `: ${said}` : "";
    if (res.status === 404)
      return { error: errorResult("http_error", `${what} was not found (HTTP 404)${suffix}`, details) };
    if (res.status === 401 || res.status === 403)
      return {
        error: errorResult(
          "http_error",
          `the server refused the credentials for ${what} (HTTP ${res.status})${suffix}; check the token and its permissions`,
          details,
        ),
      };
    return { error: errorResult("http_error", `${httpError(res).message}${suffix}`, details) };
  }
  try {
    return { json: JSON.parse(res.body.toString("utf8")), url: res.url };
  } catch {
    return {
      error: errorResult("execution_failed", `the server did not return JSON for ${what} (${res.url})`, {
        url: res.url,
      }),
    };
  }
}

/** Cuts text to `max` characters with a note saying how much was omitted. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const omitted = text.length - max;
  return {
    text: `${text.slice(0, max)}\n\n[... output truncated: showing the first ${max.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters, ${omitted.toLocaleString("en-US")} omitted ...]`,
    truncated: true,
  };
}
