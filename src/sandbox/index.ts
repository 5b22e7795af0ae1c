/**
 * @module sandbox
 * Front door of the shell sandbox: bubblewrap profiles (`workspace-write`, `read-only`, `off`), the survey that
 * turns settings into a plan, the pure plan → arguments step, and the check that bwrap works here. Anything
 * added here is public to the rest of toolgate.
 */
export { sandboxSupport } from "./detect.js";
export {
  type Confinement,
  DEFAULT_SANDBOX_SETTINGS,
  describeConfiguredSandbox,
  describeSandbox,
  prepareSandbox,
  type SandboxSettings,
} from "./prepare.js";
export { SandboxSetupError } from "./survey.js";
