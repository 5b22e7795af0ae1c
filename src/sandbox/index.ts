/**
 * @module sandbox
 * Front door of the shell sandbox: bubblewrap profiles (`workspace-write`, `read-only`, `off`), the survey that
 * turns settings into a plan, the pure plan → arguments step, the check inside the sandbox, the check after
 * each command, whether bwrap works here, and what a network grant gets (its own network namespace whose one
 * way out is toolgate's egress proxy). Anything added here is public to the rest of toolgate.
 */
export { sandboxSupport } from "./detect.js";
export { HOME_VISIBLE, type VisiblePath, visibleInHome } from "./home.js";
export { hostProgram, SYSTEM_PATH } from "./host-programs.js";
export { checkSandboxAllowHosts, connectNetwork } from "./network/connect.js";
export { forwarderTools } from "./network/forwarder.js";
export { cleanLeftPlaceholders, flushPlaceholders, isPlaceholder } from "./placeholders.js";
export {
  type Confinement,
  DEFAULT_SANDBOX_SETTINGS,
  describeConfiguredSandbox,
  describeSandbox,
  prepareSandbox,
  type SandboxSettings,
} from "./prepare.js";
export { SandboxSetupError } from "./survey.js";
