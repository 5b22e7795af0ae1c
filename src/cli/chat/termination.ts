/**
 * @module cli/chat/termination
 * How `chat` and `run` end on SIGTERM / SIGHUP: the first signal cancels the running task and lets the
 * command leave through its cleanup (the gate's close stops every tool process); if that has not ended the
 * process within a grace period, or a second signal arrives, the process exits anyway. A kill always ends
 * toolgate.
 */
import { exitCodeForSignal } from "../exit-codes.js";

/** Seconds a command gets to clean up after a kill before the process exits regardless. */
const GRACE_MS = 5000;

/**
 * Calls `onSignal` on the first of `signals`; exits the process (128 + signal number) on a second one or
 * when the grace period passes. Returns a function removing the handlers.
 * @example const stop = onTermination(["SIGTERM", "SIGHUP"], () => controller.abort());
 */
export function onTermination(
  signals: readonly NodeJS.Signals[],
  onSignal: (signal: NodeJS.Signals) => void,
  graceMs = GRACE_MS,
): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received++;
    const code = exitCodeForSignal(signal);
    if (received > 1) process.exit(code);
    // unref: a command that finishes its cleanup in time exits normally, without waiting for the timer.
    setTimeout(() => process.exit(code), graceMs).unref();
    onSignal(signal);
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.removeListener(s, handler);
  };
}
