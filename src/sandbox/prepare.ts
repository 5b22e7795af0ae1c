/**
 * @module sandbox/prepare
 * Decides how one command runs — which profile, with or without network, or unsandboxed — from the settings,
 * what the policy or a person granted, and whether bwrap works here; then surveys the disk and returns the
 * command prefix. An explicitly requested mode that cannot be had fails closed, naming the fix.
 */
import type { SandboxGrant } from "../core/index.js";
import { bwrapArgs, type SandboxMode } from "./bwrap-args.js";
import { sandboxSupport } from "./detect.js";
import { type PendingNetwork, pendingNetwork } from "./network/connect.js";
import { holdPlaceholders } from "./placeholders.js";
import { seccompProgram } from "./seccomp/program.js";
import { SandboxSetupError, surveySandbox } from "./survey.js";

/** `[sandbox]` settings, resolved (paths absolute). */
export interface SandboxSettings {
  /** Default `auto`: the sandbox when bwrap works here, else unsandboxed (and said so). */
  mode: SandboxMode;
  /** Network for every command (default false: only where a rule or a person grants it). */
  network: boolean;
  /** Extra writable paths. */
  writable: readonly string[];
  /** Extra unreadable paths. */
  hidden: readonly string[];
  /** The bwrap binary (default: `bwrap` on PATH). */
  bwrap?: string;
  /** Private or loopback hosts a network-granted command may reach through the egress proxy (default none). */
  allowHosts?: readonly string[];
}

/** The default settings: `auto`, no network, nothing extra. */
export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = Object.freeze({
  mode: "auto",
  network: false,
  writable: [],
  hidden: [],
});

/**
 * How a command will run. `profile` is a short token for results and audit records: `workspace-write`,
 * `read-only` (either may end in `+network`), `off:granted` (a rule or a person let it out), `off:config`
 * (`[sandbox] mode = "off"`), `off:unavailable` (`auto` on a machine where bwrap cannot run; `notice` says why).
 * A `network` grant is pending until `connectNetwork` gives it its namespace (until then `argv` runs sealed);
 * `notes` then say what its egress proxy refused.
 */
export type Confinement =
  | {
      sandboxed: true;
      profile: string;
      argv: string[];
      release: () => void;
      fds: readonly LauncherFd[];
      network?: PendingNetwork;
      notes?: () => readonly string[];
    }
  | { sandboxed: false; profile: string; notice?: string };

/** A descriptor the command's launcher places at fd 3, 4, … in order: an open one, or bytes read from a pipe. */
export type LauncherFd = { fd: number } | { data: Uint8Array };

/** Where and for whom a command runs. */
export interface PrepareContext {
  roots: readonly string[];
  cwd: string;
  /** How far the policy or a person let this command out. */
  grant?: SandboxGrant;
  /** Extra protected patterns (`[files] protected`). */
  protectedExtra?: readonly string[];
  home?: string;
}

/**
 * The profile a command would run under, in words, without touching the disk (for confirmations and banners).
 * @example describeSandbox(DEFAULT_SANDBOX_SETTINGS, "network") // "workspace-write, with network"
 */
export function describeSandbox(settings: SandboxSettings, grant?: SandboxGrant): string {
  let resolved: Resolved;
  try {
    resolved = resolveMode(settings, grant);
  } catch (error) {
    return `none: the command will not run (${(error as Error).message})`;
  }
  if (resolved.mode === "off") return resolved.why;
  const writes =
    resolved.mode === "workspace-write" ? "writes only inside the workspace" : "no writes but /tmp";
  const network = resolved.network ? networkWords(settings.allowHosts ?? []) : "no network";
  return `${resolved.mode} (${writes}; ${network}; secrets unreadable)`;
}

/**
 * Prepares one command. Call `release` of a sandboxed result once the command has ended.
 * @throws SandboxSetupError when the configured mode cannot be had, or the survey refuses (fail closed).
 */
export function prepareSandbox(settings: SandboxSettings, context: PrepareContext): Confinement {
  const resolved = resolveMode(settings, context.grant);
  if (resolved.mode === "off") {
    const notice = resolved.profile === "off:unavailable" ? resolved.why : undefined;
    return { sandboxed: false, profile: resolved.profile, ...(notice ? { notice } : {}) };
  }
  const support = sandboxSupport(settings.bwrap);
  const plan = surveySandbox({
    mode: resolved.mode,
    network: resolved.network,
    roots: context.roots,
    cwd: context.cwd,
    writable: settings.writable,
    hidden: settings.hidden,
    ...(context.protectedExtra ? { protectedExtra: context.protectedExtra } : {}),
    ...(context.home ? { home: context.home } : {}),
  });
  const fds: LauncherFd[] = [];
  // The seccomp filter (src/sandbox/seccomp/; built once per process), read by bwrap from its descriptor.
  const seccomp = ["--seccomp", String(3 + fds.length)];
  fds.push({ data: seccompProgram() });
  const release = holdPlaceholders(plan);
  const bwrap = support.bwrap!;
  return {
    sandboxed: true,
    profile: `${resolved.mode}${resolved.network ? "+network" : ""}`,
    // Never the host's network: a grant runs sealed until connectNetwork makes its namespace (fail closed).
    argv: [bwrap, ...seccomp, ...bwrapArgs({ ...plan, network: false })],
    release,
    fds,
    ...(plan.network
      ? { network: pendingNetwork(plan, [bwrap, ...seccomp], settings.allowHosts ?? []) }
      : {}),
  };
}

/**
 * The profile commands run under with the `[sandbox]` section of a config, in words (chat's banner and /policy).
 * @example describeConfiguredSandbox(gate.settings.sandbox)
 */
export function describeConfiguredSandbox(section?: { mode?: SandboxMode; network?: boolean }): string {
  return describeSandbox({
    ...DEFAULT_SANDBOX_SETTINGS,
    mode: section?.mode ?? "auto",
    network: section?.network ?? false,
  });
}

/** What a network grant reaches, in words. */
function networkWords(allowHosts: readonly string[]): string {
  const named = allowHosts.length > 0 ? ` except ${allowHosts.join(", ")}` : "";
  return `WITH NETWORK through toolgate's proxy: no loopback, private or metadata addresses${named}`;
}

type Resolved =
  | { mode: "workspace-write" | "read-only"; network: boolean }
  | { mode: "off"; profile: string; why: string };

function resolveMode(settings: SandboxSettings, grant?: SandboxGrant): Resolved {
  if (grant === "off") {
    return { mode: "off", profile: "off:granted", why: "NONE: this command runs outside the sandbox" };
  }
  if (settings.mode === "off") {
    return {
      mode: "off",
      profile: "off:config",
      why: 'none ([sandbox] mode = "off"): commands run unsandboxed',
    };
  }
  const support = sandboxSupport(settings.bwrap);
  if (!support.available) {
    if (settings.mode === "auto") {
      return {
        mode: "off",
        profile: "off:unavailable",
        why: `none: commands run UNSANDBOXED because ${support.reason} (${support.fix})`,
      };
    }
    throw new SandboxSetupError(
      `[sandbox] mode = "${settings.mode}" cannot be had here: ${support.reason}. ` +
        `Fix: ${support.fix}; or set [sandbox] mode = "off" (or "auto") to run commands unsandboxed`,
    );
  }
  const mode = settings.mode === "auto" ? "workspace-write" : settings.mode;
  return { mode, network: settings.network || grant === "network" };
}
