/**
 * @module config
 * Public surface of the settings loader. Anything added here is public.
 */
export { loadConfigFile, parseConfig, type ToolgateConfig } from "./config.js";
export { SECURITY_KEYS, withoutSecurityKeys } from "./trust.js";
