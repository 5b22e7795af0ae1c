/**
 * @module sandbox
 * Front door of the shell sandbox: bubblewrap profiles (`workspace-write`, `read-only`, `off`), the survey that
 * turns settings into a plan, the pure plan → arguments step, and the check that bwrap works here. Anything
 * added here is public to the rest of toolgate.
 */
export { bwrapArgs, type PlannedPath, type SandboxMode, type SandboxPlan } from "./bwrap-args.js";
export { type SandboxSupport, sandboxSupport } from "./detect.js";
export { holdPlaceholders, isHeldPlaceholder } from "./placeholders.js";
export {
  type Confinement,
  DEFAULT_SANDBOX_SETTINGS,
  describeConfiguredSandbox,
  describeSandbox,
  type PrepareContext,
  prepareSandbox,
  type SandboxSettings,
} from "./prepare.js";
export { SandboxSetupError, SCAN_DEPTH, type SurveyInput, surveySandbox } from "./survey.js";
