/**
 * @module sandbox/detect
 * Whether bubblewrap works on this machine: found on PATH, and able to make the namespaces a sandbox needs
 * (unprivileged user namespaces can be switched off by the kernel or AppArmor). Checked once per bwrap path and
 * cached; the answer says what to do when it is no.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { accessSync, closeSync, constants, openSync } from "node:fs";
import { bwrapArgs, type SandboxPlan } from "./bwrap-args.js";
import { hostProgram } from "./host-programs.js";
import { SeccompUnsupportedError, seccompProgram } from "./seccomp/program.js";

/** Linux's O_PATH (see descriptors.ts). */
const O_PATH = 0o10000000;

/** Whether the sandbox can run here, and if not, why and how to fix it. */
export interface SandboxSupport {
  available: boolean;
  /** The bwrap binary, when found. */
  bwrap?: string;
  /** bwrap's version line, when it runs. */
  version?: string;
  /** Why not, in one line. */
  reason?: string;
  /** What to do about it. */
  fix?: string;
}

const cache = new Map<string, SandboxSupport>();

/**
 * Checks (once per process and bwrap path) that bwrap can start a sandbox here.
 * @param bwrap the binary to use; default `bwrap` from a trusted folder (host-programs.ts).
 */
export function sandboxSupport(bwrap?: string): SandboxSupport {
  // Keyed by the program found too: a place distrusted later (host-programs.ts) can change which one that is.
  const key = bwrap === undefined ? `found:${hostProgram("bwrap") ?? ""}` : `given:${bwrap}`;
  let support = cache.get(key);
  if (!support) {
    support = check(bwrap);
    cache.set(key, support);
  }
  return support;
}

function check(bwrapOption: string | undefined): SandboxSupport {
  if (process.platform !== "linux") {
    return {
      available: false,
      reason: `the shell sandbox uses bubblewrap, which runs on Linux only (this is ${process.platform})`,
      fix: 'commands run unsandboxed here; set [sandbox] mode = "off" to say so explicitly',
    };
  }
  // Never through a PATH folder a command can write (host-programs.ts).
  const bwrap = bwrapOption ?? hostProgram("bwrap");
  if (!bwrap || !isExecutable(bwrap)) {
    return {
      available: false,
      reason: bwrapOption
        ? `bubblewrap (bwrap) is not installed at ${bwrapOption}`
        : "bubblewrap (bwrap) is not installed in a system folder (toolgate takes no bwrap from a folder a command can write, nor one others can write)",
      fix: "install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)",
    };
  }
  const version = spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 10_000 }).stdout?.trim();
  // The seccomp filter is part of the sandbox: without one for this CPU there is no sandbox (fail closed).
  let filter: Uint8Array;
  try {
    filter = seccompProgram();
  } catch (error) {
    if (!(error instanceof SeccompUnsupportedError)) throw error;
    return {
      available: false,
      bwrap,
      ...(version ? { version } : {}),
      reason: `${error.message}, and bwrap without the filter would leave host sockets and kernel keyrings reachable`,
      fix: "run toolgate on x86-64 or aarch64 Linux",
    };
  }
  // The probe uses the very arguments a command gets (namespaces, dropped capabilities, /proc, private /tmp, the
  // seccomp filter — here read from stdin, which the probe's shell does not need), and a mount from a
  // descriptor, as every command's sources are passed (a bind of /usr, read-only).
  const plan: SandboxPlan = {
    mode: "read-only",
    network: false,
    binds: [{ path: "/tmp/probe", source: { slot: 3 }, writable: false }],
    covers: [],
    cwd: "/",
  };
  const args = [
    "--seccomp",
    "0",
    ...bwrapArgs(plan, (slot) => slot),
    "--",
    "/bin/sh",
    "-c",
    "test -d /tmp/probe/bin",
  ];
  const usr = openSync("/usr", O_PATH);
  let probe: SpawnSyncReturns<string>;
  try {
    probe = spawnSync(bwrap, args, {
      input: filter,
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["pipe", "pipe", "pipe", usr],
    });
  } finally {
    closeSync(usr);
  }
  if (probe.status !== 0) {
    const said = (probe.stderr || probe.error?.message || `exit status ${probe.status}`)
      .trim()
      .split("\n")[0];
    return {
      available: false,
      bwrap,
      ...(version ? { version } : {}),
      reason: `bwrap cannot create a sandbox here: ${said}`,
      fix:
        "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ " +
        "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap)",
    };
  }
  return { available: true, bwrap, ...(version ? { version } : {}) };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
