/**
 * @module console
 * The front door of the approval console (`toolgate console`): a hono server on loopback with token sign-in,
 * CSRF and Host/Origin checks, a strict CSP, and a page of pending asks and the audit log.
 * Anything added here is public to other folders.
 */
export {
  ConsoleAccess,
  type ConsoleAccessOptions,
  consoleTokenProblem,
  MIN_TOKEN_CHARS,
  newConsoleToken,
} from "./access.js";
export { type ConsoleAppOptions, createConsoleApp } from "./app.js";
export { AUDIT_PAGE, type AuditPage, readAuditPage } from "./audit-read.js";
export {
  type ConsoleOptions,
  consoleOptionsProblem,
  type RunningConsole,
  startConsole,
} from "./serve.js";
export {
  type ConsoleSession,
  CSRF_HEADER,
  SESSION_HEADER,
  type SessionGrant,
} from "./session.js";
export type { SignInLimitOptions } from "./signin-limit.js";
export { type AskView, askView, MAX_FIELD_CHARS } from "./views.js";
