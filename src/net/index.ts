/**
 * @module net
 * The front door of the SSRF-safe HTTP client. Everything exported here is public to the rest of toolgate
 * (web tools today, Jira/Confluence tools later); anything added is public too.
 */
export { NetError } from "./errors.js";
export type { Resolver, SafeResponse } from "./safe-fetch.js";
export { DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT_MS, httpError, safeFetch } from "./safe-fetch.js";
export { parseAllowHosts } from "./target.js";
