/**
 * @module console
 * The front door of the approval console (`toolgate console`): a hono server on loopback with token sign-in,
 * CSRF and Host/Origin checks, a strict CSP, and a page of pending asks and the audit log.
 * Anything added here is public to other folders.
 */
export {
  ConsoleAccess,
  type ConsoleAccessOptions,
  type ConsoleSession,
  CSRF_HEADER,
  newConsoleToken,
  SESSION_COOKIE,
} from "./access.js";
export { type ConsoleAppOptions, createConsoleApp } from "./app.js";
export {
  type ConsoleOptions,
  consoleOptionsProblem,
  type RunningConsole,
  startConsole,
} from "./serve.js";
export { type AskView, askView, MAX_FIELD_CHARS, readAudit } from "./views.js";
