/**
 * @module tools/shell
 * The parts of the shell tools: background process manager, environment sanitizer, display sanitizer,
 * process runner, and the `shell_processes` companion tool. Anything added here is public to toolgate.
 */
export {
  type BackgroundInfo,
  type BackgroundOptions,
  type BackgroundOutput,
  BackgroundProcesses,
} from "./background.js";
export { displayCommand } from "./display.js";
export { dropReason, ENV_ALLOWLIST, SHELL_FIXED_ENV, sanitizeEnv } from "./env.js";
export { HeadTailBuffer } from "./output-buffer.js";
export {
  findShell,
  type GroupExit,
  type GroupOptions,
  liveGroupMembers,
  ProcessGroup,
} from "./process-group.js";
export { type RunOptions, type RunOutcome, runCommand } from "./run-command.js";
export {
  createShellProcessesTool,
  type ShellProcessesDeps,
  type ShellProcessesParams,
} from "./shell-processes.js";
