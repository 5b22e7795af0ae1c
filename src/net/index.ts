/**
 * @module net
 * The front door of toolgate's one HTTP path (`httpRequest`: untrusted URLs vetted against SSRF, endpoints the
 * user configured allowed) and of the address rules it keeps. Everything exported here is public to the rest
 * of toolgate (web tools, Atlassian tools, model clients and downloads, `doctor`, the shell sandbox's egress
 * proxy); anything added is public too.
 */
export { NetError } from "./errors.js";
export { type HttpMode, type HttpOptions, type HttpResponse, httpRequest } from "./http.js";
export type { SafeResponse } from "./safe-fetch.js";
export { DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT_MS, httpError, safeFetch } from "./safe-fetch.js";
export { type HostRule, parseAllowHosts, type Target, toTarget } from "./target.js";
export {
  defaultLookup,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  type VetWording,
  vetTarget,
} from "./vet.js";
