/**
 * @module hooks
 * Hook scripts around tool calls (docs/hooks.md): toolgate's `[[hooks]]` and Claude Code's, gemini-cli's and
 * Codex's files, the name and argument mapping to those hosts, running a hook (failing closed), and the
 * gate's hooks in the decide and shape steps. Anything added here is public to the other folders.
 */
export { HookSet, type HookSetOptions } from "./hook-set.js";
export { HOST_SETTINGS_FILES, hostSettingsFile, type LoadedHooks, loadHooks } from "./load.js";
export { fromHost, HOST_TABLE, type HostFormat, toHost } from "./mapping.js";
export { HOOK_MAX_OUTPUT_BYTES, type HookRun, runHook } from "./run-hook.js";
export {
  type ConfigHook,
  type HookEvent,
  type HookFormat,
  type HookOrigin,
  type HookSpec,
  hostHooks,
  type SkippedHook,
} from "./sources.js";
export { type HookCall, hookInput, verdictOf } from "./verdict.js";
