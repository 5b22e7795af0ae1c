/**
 * @module config
 * The settings loader's front door: reading and validating `.toolgate/config.toml`, turning it into
 * settings, and dropping the security keys of an untrusted workspace — only what other folders use.
 * Anything added here is public.
 */
export { loadConfigFile, parseConfig, settingsFromConfig } from "./config.js";
export type { ToolgateConfig, ToolgateSettings } from "./schema.js";
export { removesProtection, type UntrustedConfig, withoutSecurityKeys } from "./trust.js";
