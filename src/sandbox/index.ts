/**
 * @module sandbox
 * Front door of the shell sandbox: bubblewrap profiles (`workspace-write`, `read-only`, `off`), the survey that
 * turns settings into a plan, the pure plan → arguments step, the check inside the sandbox, the check after
 * each command, and whether bwrap works here. Anything added here is public to the rest of toolgate.
 */
export { sandboxSupport } from "./detect.js";
export { HOME_VISIBLE, type VisiblePath, visibleInHome } from "./home.js";
export { cleanLeftPlaceholders, flushPlaceholders } from "./placeholders.js";
export {
  type Confinement,
  DEFAULT_SANDBOX_SETTINGS,
  describeConfiguredSandbox,
  describeSandbox,
  prepareSandbox,
  type SandboxSettings,
} from "./prepare.js";
export { SandboxSetupError } from "./survey.js";
