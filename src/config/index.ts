/**
 * @module config
 * Public surface of the settings loader. Anything added here is public.
 */
export { loadConfigFile, parseConfig, type ToolgateConfig } from "./config.js";
