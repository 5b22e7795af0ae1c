/**
 * @module tools/shell/run-command
 * Runs one foreground command to completion: overall and idle timeouts, cancellation, streaming, and the
 * rule that the call ends when the shell exits (plus a short drain), never when every inherited pipe closes.
 */
import { type GroupExit, type GroupOptions, ProcessGroup } from "./process-group.js";

/** Foreground options on top of {@link GroupOptions}. */
export interface RunOptions extends Omit<GroupOptions, "onOutput"> {
  timeoutMs: number;
  /** Stop when no output arrives for this long (none: no idle limit). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Streamed output (stdout and stderr as they arrive), itself capped at `maxOutputBytes` in all. */
  onOutput?: (chunk: string) => void;
  /** SIGTERM → SIGKILL grace (default 2000 ms). */
  killGraceMs?: number;
  /** How long to keep reading pipes after the shell exits (default 100 ms). */
  drainMs?: number;
}

/** How a foreground command ended. */
export interface RunOutcome {
  exit: GroupExit;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  /** Set when toolgate stopped the command. */
  stopped?: "timeout" | "idle" | "cancelled";
  /** Processes the command left running in its group (they are stopped). */
  leftovers: boolean;
  /** What the launcher reported after the command (the sandbox's check), apart from the command's output. */
  notes?: string;
}

/**
 * Runs a command and waits for it.
 * @example const out = await runCommand({ command: "ls", cwd, env, shell: findShell(), timeoutMs: 60_000, maxOutputBytes: 1 << 20 });
 */
export async function runCommand(options: RunOptions): Promise<RunOutcome> {
  const grace = options.killGraceMs ?? 2000;
  let streamed = 0;
  let streamCut = false;
  const onOutput = options.onOutput
    ? (chunk: string) => {
        if (streamCut) return;
        streamed += Buffer.byteLength(chunk);
        if (streamed > options.maxOutputBytes) {
          streamCut = true;
          options.onOutput?.("\n[output too long: streaming stopped; the result keeps head and tail]\n");
        } else options.onOutput?.(chunk);
      }
    : undefined;
  const group = new ProcessGroup({ ...options, ...(onOutput ? { onOutput } : {}) });

  let stopped: RunOutcome["stopped"];
  let stopping: Promise<void> | undefined;
  const stop = (why: NonNullable<RunOutcome["stopped"]>) => {
    if (stopped || group.exit) return;
    stopped = why;
    stopping = group.stop(grace);
  };

  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  let idle: NodeJS.Timeout | undefined;
  const idleMs = options.idleTimeoutMs;
  if (idleMs !== undefined) {
    // Re-armed from the time output last arrived, so a chatty command costs one timer, not one per chunk.
    const check = () => {
      const quiet = Date.now() - group.lastOutputAt;
      if (quiet >= idleMs) stop("idle");
      else idle = setTimeout(check, idleMs - quiet);
    };
    idle = setTimeout(check, idleMs);
  }
  const onAbort = () => stop("cancelled");
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const exit = await group.exited;
    const elapsedMs = Date.now() - group.startedAt;
    clearTimeout(timer);
    clearTimeout(idle);
    await group.drain(options.drainMs ?? 100);
    if (stopping) await stopping;
    const leftovers = !exit.error && group.alive();
    // Leftover background children would outlive the call unseen: stop them (without delaying the result).
    if (leftovers) void group.stop(grace);
    return {
      exit,
      stdout: group.stdout.text(),
      stderr: group.stderr.text(),
      ...(group.afterNote ? { notes: group.afterNote } : {}),
      elapsedMs,
      ...(stopped ? { stopped } : {}),
      leftovers,
    };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
