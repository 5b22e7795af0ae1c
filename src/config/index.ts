/**
 * @module config
 * Public surface of the settings loader. Anything added here is public.
 */
export { loadConfigFile, parseConfig, settingsFromConfig, validateConfig } from "./config.js";
export { configReference } from "./reference.js";
export {
  CONFIG_SCHEMA,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  type ToolgateConfig,
  type ToolgateSettings,
} from "./schema.js";
export { withoutSecurityKeys } from "./trust.js";
