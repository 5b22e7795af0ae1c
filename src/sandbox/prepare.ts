/**
 * @module sandbox/prepare
 * Decides how one command runs — which profile, with or without network, or unsandboxed — from the settings,
 * what the policy or a person granted, and whether bwrap works here; then surveys the disk, makes the
 * placeholders, opens every source and returns the command prefix with the descriptors it names, and the
 * release that runs the check after the command. An explicitly requested mode that cannot be had fails closed,
 * naming the fix.
 */
import { displaySafe, type SandboxGrant } from "../core/index.js";
import { bwrapArgs, expectedMounts, type SandboxMode, type SandboxPlan } from "./bwrap-args.js";
import { closeAll, textOf } from "./descriptors.js";
import { sandboxSupport } from "./detect.js";
import { distrustHostPlaces, hostProgram, SYSTEM_PATH } from "./host-programs.js";
import { describeIncomplete, incompleteMark, markIncomplete, oweCheck } from "./incomplete.js";
import { type PendingNetwork, pendingNetwork } from "./network/connect.js";
import { LayoutMoved, type OpenedLayout, openLayout } from "./open-layout.js";
import {
  cleanLeftPlaceholders,
  holdPlaceholders,
  PlaceholderDenied,
  PlaceholderRace,
} from "./placeholders.js";
import type { ScanRules } from "./scan.js";
import { seccompProgram } from "./seccomp/program.js";
import { newlyStaged, unstagedSecrets } from "./secret-staging.js";
import { type Layout, SandboxSetupError, surveyPatterns, surveySandbox } from "./survey.js";
import { describeSweep, sweep } from "./sweep.js";
import { CHECK_SCRIPT, checkArgs } from "./verify.js";

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
  /** Extra paths inside the home folder that commands may read (the home folder is otherwise emptied). */
  readable?: readonly string[];
  /** Folders the survey does not look through (large build output holding no secrets). */
  unchecked?: readonly string[];
  /** The bwrap binary (default: `bwrap` on PATH). */
  bwrap?: string;
  /** The user's state folder: where each process keeps the journal of its placeholders. */
  stateDir?: string;
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
 * A sandboxed command is started as `argv` followed by the shell and its arguments, with `fds` at 3, 4, …;
 * `release` (once it has ended) runs the check after the command and returns what it reports, if anything.
 * A `network` grant is pending until `connectNetwork` gives it its namespace (until then `argv` and `fds` run
 * it sealed); `notes` then say what its egress proxy refused.
 */
export type Confinement =
  | ({
      sandboxed: true;
      profile: string;
      release: () => string | undefined;
      network?: PendingNetwork;
      notes?: () => readonly string[];
    } & Launch)
  | { sandboxed: false; profile: string; notice?: string };

/** How a sandboxed command is started: the prefix of its argv and the descriptors that prefix names. */
export interface Launch {
  argv: string[];
  fds: readonly LauncherFd[];
}

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
  /** The shell the command runs with (`$0`; when it is bash, the check runs the command in the same process). */
  shell?: string;
  /** Where PATH and the toolchain variables are read (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** How often the survey is repeated when the workspace changes under it before failing closed. */
const ATTEMPTS = 3;
/** The child's descriptors of bwrap's arguments and of the seccomp filter; the opened sources follow them. */
const ARGS_FD = 3;
const SECCOMP_FD = 4;

/**
 * The profile a command would run under, in words, without touching the disk (for confirmations and banners).
 * @example describeSandbox(DEFAULT_SANDBOX_SETTINGS, "network") // "workspace-write (…; WITH NETWORK; …)"
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
  return `${resolved.mode} (${writes}; ${network}; home folder hidden; secrets unreadable)`;
}

let cleaned = false;

/**
 * Prepares one command. Call `release` of a sandboxed result once the command has ended.
 * @throws SandboxSetupError when the configured mode cannot be had, or the survey refuses (fail closed).
 */
export function prepareSandbox(settings: SandboxSettings, context: PrepareContext): Confinement {
  // No program toolgate runs on the host (bwrap first) comes from a place this command could write.
  distrustHostPlaces([...context.roots, ...(settings.writable ?? [])]);
  const resolved = resolveMode(settings, context.grant);
  if (resolved.mode === "off") {
    const notice = resolved.profile === "off:unavailable" ? resolved.why : undefined;
    return { sandboxed: false, profile: resolved.profile, ...(notice ? { notice } : {}) };
  }
  const support = sandboxSupport(settings.bwrap);
  const bash = findBash();
  const mark = incompleteMark(settings.stateDir, context.roots);
  if (mark) throw new SandboxSetupError(describeIncomplete(mark));
  if (!cleaned) {
    cleaned = true;
    cleanLeftPlaceholders(settings.stateDir);
  }
  const rules: ScanRules = {
    ...surveyPatterns(context.protectedExtra),
    unchecked: new Set(settings.unchecked ?? []),
  };
  const { layout, opened, releasePlaceholders } = setUp(settings, context, resolved);
  const settle = oweCheck(settings.stateDir, context.roots);
  const staging = stagingCheck(() => unstagedSecrets(layout, rules.secretSet));
  const bwrap = support.bwrap!;
  const check = [bash, "-c", CHECK_SCRIPT, context.shell ?? bash, ...checkArgs(expectedMounts(opened.plan))];
  /** bwrap with the arguments of `plan` at fd 3 and the seccomp filter at fd 4, then the check. */
  const launch = (plan: SandboxPlan): Launch => {
    // Each mount from a descriptor gets a copy of it for bwrap to use up (`--bind-fd` closes it); the check
    // inside compares against the originals, which bwrap leaves open.
    const copies: number[] = [];
    const firstCopy = SECCOMP_FD + 1 + opened.fds.length;
    const args = bwrapArgs(plan, (slot) => {
      copies.push(opened.fds[slot - SECCOMP_FD - 1]!);
      return firstCopy + copies.length - 1;
    });
    return {
      // The seccomp filter (src/sandbox/seccomp/; built once per process), read by bwrap from its descriptor.
      argv: [bwrap, "--args", String(ARGS_FD), "--seccomp", String(SECCOMP_FD), "--", ...check],
      fds: [
        { data: Buffer.from(args.map((a) => `${a}\0`).join(""), "latin1") },
        { data: seccompProgram() },
        ...opened.fds.map((fd) => ({ fd })),
        ...copies.map((fd) => ({ fd })),
      ],
    };
  };
  let released = false;
  const plan = opened.plan;
  return {
    sandboxed: true,
    profile: `${resolved.mode}${resolved.network ? "+network" : ""}`,
    // Never the host's network: a grant runs sealed until connectNetwork makes its namespace (fail closed).
    ...launch({ ...plan, network: false }),
    release: () => {
      if (released) return undefined;
      released = true;
      closeAll(opened.fds);
      releasePlaceholders();
      const report = sweep(layout, rules);
      if (report.incomplete.length > 0) {
        const roots = [...layout.baseline.keys()].map(textOf);
        markIncomplete(settings.stateDir, roots, report.incomplete);
        // The person hears it from toolgate, not only through the command's result (which the command shapes).
        const mark = incompleteMark(settings.stateDir, roots);
        // The mark names paths the command chose: written out like every name shown to the person.
        if (mark) process.stderr.write(`toolgate: ${displaySafe(describeIncomplete(mark), false)}\n`);
      }
      settle();
      // Told to the person too: the command shapes its own result (secret-staging.ts).
      const staged = (staging && stagingCheck(() => newlyStaged(staging))) ?? [
        "[sandbox: could not check whether the command made a secret-named file stageable by git]",
      ];
      for (const line of staged) process.stderr.write(`toolgate: ${displaySafe(line, false)}\n`);
      const notes = [...layout.notes, unsurveyedNote(layout), describeSweep(report), ...staged].filter(
        Boolean,
      );
      return notes.length > 0 ? notes.join("\n") : undefined;
    },
    ...(plan.network
      ? {
          network: pendingNetwork(
            (env) => launch({ ...plan, setenv: { ...plan.setenv, ...env } }),
            bwrap,
            settings.allowHosts ?? [],
          ),
        }
      : {}),
  };
}

/** Survey, placeholders, descriptors; again when the workspace changed meanwhile, then fail closed. */
function setUp(
  settings: SandboxSettings,
  context: PrepareContext,
  resolved: { mode: "workspace-write" | "read-only"; network: boolean },
): { layout: Layout; opened: OpenedLayout; releasePlaceholders: () => void } {
  let why = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const layout = surveySandbox({
      mode: resolved.mode,
      network: resolved.network,
      roots: context.roots,
      cwd: context.cwd,
      writable: settings.writable,
      hidden: settings.hidden,
      readable: settings.readable ?? [],
      unchecked: settings.unchecked ?? [],
      ...(context.protectedExtra ? { protectedExtra: context.protectedExtra } : {}),
      ...(context.home ? { home: context.home } : {}),
      ...(context.env ? { env: context.env } : {}),
    });
    let releasePlaceholders: () => void;
    try {
      releasePlaceholders = holdPlaceholders(layout.placeholders, layout.writable, layout.placeholderFiles);
    } catch (error) {
      if (error instanceof PlaceholderDenied) throw new SandboxSetupError(error.message);
      if (!(error instanceof PlaceholderRace)) throw error;
      why = error.message;
      continue;
    }
    try {
      return { layout, opened: openLayout(layout, SECCOMP_FD + 1), releasePlaceholders };
    } catch (error) {
      releasePlaceholders();
      if (!(error instanceof LayoutMoved)) throw error;
      why = error.message;
    }
  }
  throw new SandboxSetupError(
    `the workspace kept changing while the sandbox was being set up (${why}); run the command again`,
  );
}

/** A step of the staging check (secret-staging.ts), which must not fail the command: undefined when it throws. */
function stagingCheck<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined;
  }
}

/** Folders hidden because the survey could not look through them, as a line for the result. */
function unsurveyedNote(layout: Layout): string | undefined {
  if (layout.unsurveyed.length === 0) return undefined;
  const shown = layout.unsurveyed.slice(0, 5).map(textOf).join(", ");
  const more = layout.unsurveyed.length > 5 ? ` and ${layout.unsurveyed.length - 5} more` : "";
  return (
    `[sandbox: hid ${shown}${more} from the command: the survey could not read or reach them (unreadable, or ` +
    "past its folder limit); list large build folders in [sandbox] unchecked]"
  );
}

/**
 * The bash the check runs in: one from a trusted folder (host-programs.ts: never a bash a command could have
 * planted on PATH; the command's own shell is found the same way, tools/shell/process-group.ts).
 */
function findBash(): string {
  const bash = hostProgram("bash", SYSTEM_PATH);
  if (bash) return bash;
  throw new SandboxSetupError(
    "the sandbox checks its mounts with bash before each command, and bash is not installed in a system folder; " +
      'install it, or set [sandbox] mode = "off"',
  );
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
