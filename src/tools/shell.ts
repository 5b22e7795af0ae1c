/**
 * @module tools/shell
 * `shell`: runs a command with `bash -c` inside the sandbox (bubblewrap; see src/sandbox/), in its own process
 * group, stdin closed, a sanitized environment and streamed, capped output; stops the whole group on timeout,
 * idle timeout or cancellation; or starts it in the background (see `shell_processes`). High risk; confirmation
 * shows the command with hidden characters visible and the sandbox profile it will run under.
 */

import type { SandboxGrant, Tool, ToolError, ToolResult } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import {
  type Confinement,
  connectNetwork,
  DEFAULT_SANDBOX_SETTINGS,
  describeSandbox,
  prepareSandbox,
  type SandboxSettings,
  SandboxSetupError,
} from "../sandbox/index.js";
import type { BackgroundProcesses } from "./shell/background.js";
import { displayCommand } from "./shell/display.js";
import { SHELL_FIXED_ENV, sanitizeEnv } from "./shell/env.js";
import { findShell } from "./shell/process-group.js";
import { type RunOutcome, runCommand } from "./shell/run-command.js";

/** Parameters of `shell`. */
export interface ShellParams {
  command: string;
  /** Working directory, inside an allowed root (default: the first root). */
  cwd?: string;
  /** Milliseconds before the command is stopped. */
  timeout?: number;
  /** Milliseconds without output before the command is stopped. */
  idleTimeout?: number;
  /** Start and return at once with an id. */
  background?: boolean;
  /** Leave the sandbox: `network` (sandboxed, with network) or `off` (unsandboxed). Always at least `ask`. */
  sandbox?: SandboxGrant;
  /** Why the command needs to leave the sandbox (shown to the person approving). */
  justification?: string;
}

/** What `shell` needs. */
export interface ShellToolDeps {
  /** Resolves `cwd` (undefined: the default root) to a canonical directory inside a root, or throws. */
  resolveCwd: (cwd: string | undefined) => Promise<string>;
  /**
   * The workspace's containment of a `cwd` argument alone (a path outside the roots is `path_not_allowed`),
   * checked before anyone is asked about the call; `resolveCwd` checks again when it runs.
   */
  containCwd?: (cwd: string) => Promise<void>;
  roots: readonly string[];
  /** Variables the host passes on explicitly (still filtered for secrets and hooks). */
  env?: Record<string, string>;
  processes: BackgroundProcesses;
  /** Default {@link DEFAULT_SHELL_TIMEOUT_MS}. */
  defaultTimeoutMs?: number;
  /** Largest `timeout` accepted (default 600 000 ms). */
  maxTimeoutMs?: number;
  /** Output kept per call, head and tail (default 1 MiB; half for stdout, half for stderr). */
  maxOutputBytes?: number;
  /** SIGTERM → SIGKILL grace (default 2000 ms). */
  killGraceMs?: number;
  /** The parent environment to filter (default `process.env`, read at each call). */
  parentEnv?: Record<string, string | undefined>;
  /** Extra lines for the confirmation (e.g. the policy's risk reasons for this command). */
  commandNotes?: (command: string, cwd: string | undefined) => Promise<string[]> | string[];
  /** `[sandbox]` settings (default: `auto`, no network). */
  sandbox?: SandboxSettings;
  /** Extra protected patterns (`[files] protected`), kept read-only inside the sandbox too. */
  protectedExtra?: readonly string[];
}

/** A command's timeout when the call gives none (config `[shell] timeout_ms`): 2 minutes. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
/** Output kept per call when the host sets no cap (config `[shell] max_output_bytes`): 1 MiB. */
export const DEFAULT_SHELL_OUTPUT_BYTES = 1024 * 1024;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Creates the `shell` tool. */
export function createShellTool(deps: ShellToolDeps): Tool<ShellParams> {
  const shell = findShell();
  const defaultTimeout = deps.defaultTimeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
  const maxTimeout = Math.max(deps.maxTimeoutMs ?? 600_000, defaultTimeout);
  const maxOutput = deps.maxOutputBytes ?? DEFAULT_SHELL_OUTPUT_BYTES;
  const childEnv = () => ({ ...sanitizeEnv(deps.parentEnv ?? process.env, deps.env), ...SHELL_FIXED_ENV });
  const sandbox = deps.sandbox ?? DEFAULT_SANDBOX_SETTINGS;
  /** The confinement of one command (a network grant with its namespace), or a failure naming the fix. */
  const confine = async (cwd: string, grant: SandboxGrant | undefined): Promise<Confinement> => {
    try {
      return await connectNetwork(
        prepareSandbox(sandbox, {
          roots: deps.roots,
          cwd,
          shell,
          ...(grant ? { grant } : {}),
          ...(deps.protectedExtra ? { protectedExtra: deps.protectedExtra } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof SandboxSetupError) throw new ToolFailure("execution_failed", error.message);
      throw error;
    }
  };

  return defineTool<ShellParams>({
    name: "shell",
    displayName: "Shell",
    description:
      "Runs a shell command (bash -c) and returns its output and exit code; stderr is reported separately. " +
      "stdin is closed and pagers are disabled, so interactive commands fail instead of waiting. The command " +
      `is stopped (with everything it started) after \`timeout\` ms (default ${defaultTimeout}) or ` +
      "`idleTimeout` ms without output. Processes left running with `&` are stopped when the command exits: " +
      "use `background: true` for servers and watchers, then `shell_processes` to read or stop them. " +
      "Commands run in a sandbox: the system is read-only, only the workspace and /tmp are writable, there is " +
      'no network (with `sandbox: "network"`, public http and https hosts through the proxy in HTTP_PROXY ' +
      "and HTTPS_PROXY; programs that ignore those get none), the home folder is empty but for toolchains " +
      "(~/.nvm, ~/.cargo, …; writes there are thrown away), secret files read as unreadable, and files that " +
      "decide what runs next (.git/config, .git/hooks, .toolgate, .vscode, .mcp.json, CI files, ...) are " +
      "read-only; missing ones show up as empty read-only folders that keep them from being created, and ones " +
      "a command creates anywhere are moved to .toolgate/quarantine after it. Leave them alone.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, description: "The command line to run with bash -c." },
        cwd: { type: "string", description: "Working directory inside the workspace (default: its root)." },
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: maxTimeout,
          description: "Timeout in milliseconds.",
        },
        idleTimeout: {
          type: "integer",
          minimum: 1,
          maximum: maxTimeout,
          description: "Stop after this many milliseconds without output.",
        },
        background: { type: "boolean", description: "Start in the background and return an id at once." },
        sandbox: {
          type: "string",
          enum: ["network", "off"],
          description:
            "Commands run in a sandbox: writes only inside the workspace, no network, secrets unreadable. " +
            'Set "network" when the command needs the network (e.g. npm install), "off" only when it cannot ' +
            "work sandboxed; a person or a policy rule must approve it. Give a justification.",
        },
        justification: {
          type: "string",
          minLength: 1,
          description: "Why the command needs the sandbox setting (shown to the person approving).",
        },
      },
      required: ["command"],
      additionalProperties: false,
    },
    kind: "execute",
    risk: "high",
    argKinds: { command: "command", cwd: "path" },
    outputMode: "head-tail",
    validate: ({ command, sandbox: wanted, justification }) => {
      if (command.trim() === "") return "command must not be blank";
      if (wanted && !justification?.trim()) return `justification is required when sandbox is "${wanted}"`;
      return undefined;
    },
    sandboxRequest: ({ sandbox: level, justification }) =>
      level ? { level, ...(justification ? { justification } : {}) } : undefined,
    describe: ({ command, cwd, background }) => {
      const shown = displayCommand(command);
      const short = shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
      return `${background ? "Start in background" : "Run"}: ${short}${cwd ? ` (in ${cwd})` : ""}`;
    },
    locations: ({ cwd }) => [cwd ?? deps.roots[0] ?? "."],
    ...(deps.containCwd
      ? { precheck: async ({ cwd }: ShellParams) => (cwd === undefined ? undefined : deps.containCwd?.(cwd)) }
      : {}),
    async confirmation({ command, cwd, sandbox: wanted }, _signal, context) {
      const notes = deps.commandNotes ? await deps.commandNotes(command, cwd) : [];
      // toolgate's words only: the model's justification is its own quoted field (core/confirmation).
      let profile = describeSandbox(sandbox, context.sandbox);
      if (wanted)
        profile = `${profile} — the command asks ${wanted === "off" ? "to run OUTSIDE the sandbox" : "for network access"}`;
      return {
        type: "exec",
        command: displayCommand(command),
        sandbox: profile,
        ...(notes.length > 0 ? { reason: notes.join("; ") } : {}),
      };
    },
    async run(params, { signal, updateOutput, sandbox: grant }) {
      const cwd = await deps.resolveCwd(params.cwd);
      const confinement = await confine(cwd, grant);
      const launcher = confinement.sandboxed
        ? { launcher: { argv: confinement.argv, release: confinement.release, fds: confinement.fds } }
        : {};
      if (params.background) {
        let info: ReturnType<BackgroundProcesses["start"]>;
        try {
          info = deps.processes.start({
            command: params.command,
            cwd,
            env: childEnv(),
            shell,
            maxOutputBytes: Math.ceil(maxOutput / 2),
            ...launcher,
          });
        } catch (error) {
          if (confinement.sandboxed) confinement.release();
          throw new ToolFailure("execution_failed", (error as Error).message);
        }
        const text =
          `Started background process ${info.id} (pid ${info.pid ?? "?"}; sandbox: ${confinement.profile}). ` +
          `Use shell_processes with action "read" or "stop" and id "${info.id}".`;
        return {
          ...okResult(text, text, { ...info, sandbox: confinement.profile }),
          sandbox: confinement.profile,
        };
      }
      const timeoutMs = Math.min(params.timeout ?? defaultTimeout, maxTimeout);
      const outcome = await runCommand({
        command: params.command,
        cwd,
        env: childEnv(),
        shell,
        maxOutputBytes: Math.ceil(maxOutput / 2),
        timeoutMs,
        ...(params.idleTimeout !== undefined ? { idleTimeoutMs: params.idleTimeout } : {}),
        signal,
        ...(updateOutput ? { onOutput: updateOutput } : {}),
        ...(deps.killGraceMs !== undefined ? { killGraceMs: deps.killGraceMs } : {}),
        ...launcher,
      });
      return shellResult(outcome, timeoutMs, params.idleTimeout, confinement);
    },
  });
}

/** The error a finished command reports, if any. */
function outcomeError(o: RunOutcome, timeoutMs: number, idleMs: number | undefined): ToolError | undefined {
  const { code, signal, error } = o.exit;
  const elapsedMs = o.elapsedMs;
  if (error) return { type: "execution_failed", message: `could not start the shell: ${error.message}` };
  if (o.stopped === "timeout") {
    return {
      type: "timeout",
      message: `command timed out after ${seconds(elapsedMs)} (timeout ${timeoutMs} ms); its process group was stopped`,
      details: { elapsedMs, timeoutMs },
    };
  }
  if (o.stopped === "idle") {
    return {
      type: "timeout",
      message: `command produced no output for ${idleMs} ms and was stopped after ${seconds(elapsedMs)}`,
      details: { elapsedMs, idleTimeoutMs: idleMs },
    };
  }
  if (o.stopped === "cancelled") {
    return {
      type: "cancelled",
      message: `command was cancelled after ${seconds(elapsedMs)}`,
      details: { elapsedMs },
    };
  }
  if (signal) {
    return {
      type: "execution_failed",
      message: `command was killed by ${signal}`,
      details: { signal, elapsedMs },
    };
  }
  if (code !== 0) {
    return {
      type: "execution_failed",
      message: `command exited with code ${code}`,
      details: { exitCode: code, stderr: o.stderr.slice(-4000), elapsedMs },
    };
  }
  return undefined;
}

/** Output first, then one status line; stderr kept apart. An unsandboxed run under `auto` says so. */
function shellResult(
  o: RunOutcome,
  timeoutMs: number,
  idleMs: number | undefined,
  confinement: Confinement,
): ToolResult {
  const error = outcomeError(o, timeoutMs, idleMs);
  const parts: string[] = [];
  if (!confinement.sandboxed && confinement.notice) parts.push(`[sandbox: ${confinement.notice}]`);
  // The check's report first: truncation keeps the start, and the command's output cannot push it out.
  if (o.notes) parts.push(o.notes);
  if (o.stdout) parts.push(o.stdout.replace(/\n$/, ""));
  if (o.stderr) parts.push(`[stderr]\n${o.stderr.replace(/\n$/, "")}`);
  if (o.leftovers) parts.push("[processes left running in the background were stopped]");
  if (confinement.sandboxed) for (const note of confinement.notes?.() ?? []) parts.push(`[${note}]`);
  const status = error ? `[${error.message}]` : `[exit code ${o.exit.code}]`;
  parts.push(status);
  const body = parts.join("\n");
  const data = {
    exitCode: o.exit.code,
    signal: o.exit.signal,
    stdout: o.stdout,
    stderr: o.stderr,
    ...(o.notes ? { notes: o.notes } : {}),
    elapsedMs: o.elapsedMs,
    sandbox: confinement.profile,
    ...(o.stopped ? { stopped: o.stopped } : {}),
  };
  const sandbox = confinement.profile;
  if (!error) return { ...okResult(body, body, data), sandbox };
  return { llmContent: `Error (${error.type}): ${body}`, returnDisplay: body, error, data, sandbox };
}
