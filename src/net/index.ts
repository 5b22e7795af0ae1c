/**
 * @module net
 * The front door of the SSRF-safe HTTP client. Everything exported here is public to the rest of toolgate
 * (web tools today, Jira/Confluence tools later); anything added is public too.
 */
export { classifyAddress } from "./address.js";
export type { BodyRead, OnTooLarge } from "./body.js";
export type { NetErrorDetails, NetErrorType, NetFailureReason } from "./errors.js";
export { NetError } from "./errors.js";
export type { ResolvedAddress, Resolver, SafeFetchOptions, SafeResponse } from "./safe-fetch.js";
export { httpError, safeFetch } from "./safe-fetch.js";
export type { HostRule } from "./target.js";
export { normalizeHost, parseAllowHosts } from "./target.js";
