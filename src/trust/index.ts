/**
 * @module trust
 * Front door of workspace trust's reviewing and recording: what trusting a workspace would turn on (or what
 * changed since it was trusted), recording it in the trust list, and re-recording a file toolgate itself
 * wrote. The list and the per-file check live in `workspace/trust.ts`; what an untrusted file may still do,
 * in `policy/untrusted.ts` and `config/trust.ts`. Anything added here is shared with the rest of toolgate.
 */
export { forgetFolder, retrustFile, trustReview } from "./record.js";
export {
  type FileReview,
  formatReview,
  needsTrust,
  type ReviewStatus,
  reviewWorkspace,
  type WorkspaceReview,
} from "./review.js";
