/**
 * @module sandbox/bwrap-args
 * The one job of this file: turn a {@link SandboxPlan} (every path already surveyed and opened) into bubblewrap
 * arguments, and the list of mounts the check inside the sandbox expects (src/sandbox/verify.ts). Pure — no
 * file system, no environment — so the whole profile is table-tested. Order matters to bwrap: a later mount
 * covers an earlier one, so the layers go system (read-only) → private /tmp → binds, shallowest first (the
 * emptied home folder, what stays visible in it, the roots, writable paths, folders pinned in place) → read-only
 * covers, shallowest first (protected paths, placeholders, hidden secrets).
 *
 * Paths are raw (one byte per character, see descriptors.ts); the arguments go to bwrap through `--args`, as
 * bytes, so a name that is not UTF-8 is mounted exactly.
 */
import type { Expected } from "./verify.js";

/** The sandbox modes a user can configure. `auto` is resolved to one of the others before a plan is made. */
export type SandboxMode = "auto" | "workspace-write" | "read-only" | "off";

/**
 * Where a mount's content comes from: a descriptor the child gets at fd `slot` (opened by the survey without
 * following a link, mounted as `/proc/self/fd/<slot>`), `/dev/null` (a hidden file), or a fresh `tmpfs`.
 */
export type Source = { slot: number } | { system: "/dev/null" } | { tmpfs: true };

/** One mount: where, from what, and whether the command may write there. */
export interface Mount {
  path: string;
  source: Source;
  writable: boolean;
}

/** Everything bwrap needs for one command, decided by the survey. */
export interface SandboxPlan {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /**
   * Binds over the read-only system, mounted shallowest first: the emptied home folder (a writable tmpfs),
   * what stays visible in it (read-only), the roots and writable paths, and the folders between a root and a
   * covered path, each bound onto itself so it cannot be renamed away.
   */
  binds: readonly Mount[];
  /** Read-only covers mounted after every bind, shallowest first: protected paths, placeholders, secrets. */
  covers: readonly Mount[];
  /** Working directory of the command (inside a root). */
  cwd: string;
  /** Extra variables set inside (TMPDIR and git's discovery switch are always set). */
  setenv?: Readonly<Record<string, string>>;
}

/**
 * bwrap's options for `plan` (raw strings, for `--args`): everything before `--`. `consumed` gives, per
 * mount from a descriptor, the slot of the copy bwrap may use up (see {@link mountArgs}); without it the source
 * is named by its path in `/proc/self/fd`.
 * @example bwrapArgs(plan) // ["--unshare-all", …, "--bind", "/proc/self/fd/5", "/w", …, "--chdir", "/w"]
 */
export function bwrapArgs(plan: SandboxPlan, consumed?: (slot: number) => number): string[] {
  const args = [
    // Its own user, PID, IPC, UTS, cgroup and (unless allowed) network namespaces; no capabilities, no way to
    // make further user namespaces, a new session (no TIOCSTI into the caller's terminal), and everything
    // dies with toolgate.
    "--unshare-all",
    "--unshare-user",
    ...(plan.network ? ["--share-net"] : []),
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    // The command is PID 1 itself: bwrap's own init would be a process inside the sandbox without the seccomp
    // filter, and a command could write its code through /proc/1/mem.
    "--as-pid-1",
    // The system, read-only; its own /dev, /proc (no other process is visible) and a private /tmp.
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  for (const mount of [...byDepth(plan.binds), ...byDepth(plan.covers)])
    args.push(...mountArgs(mount, consumed));
  const env = { TMPDIR: "/tmp", GIT_DISCOVERY_ACROSS_FILESYSTEM: "1", ...plan.setenv };
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--chdir", plan.cwd);
  return args;
}

/**
 * What the check inside the sandbox expects, one entry per mount of the plan: the topmost mount at its path
 * holds the same file as its source, read-only where planned.
 */
export function expectedMounts(plan: SandboxPlan): Expected[] {
  const last = new Map<string, Mount>();
  // The same path mounted twice: the later mount (deeper in the order) is the one on top.
  for (const mount of [...byDepth(plan.binds), ...byDepth(plan.covers)]) last.set(mount.path, mount);
  return [...last.values()].map((m) => ({ path: m.path, writable: m.writable, ref: refOf(m.source) }));
}

/**
 * With `consumed`, a descriptor source is mounted with `--bind-fd`/`--ro-bind-fd` from the slot `consumed` gives
 * (a copy of the source's descriptor, which bwrap closes after the mount): bwrap then checks, right after that
 * mount and before the next one makes its mount point, that what it mounted is the descriptor's own file — so a
 * folder swapped for a link meanwhile cannot have bwrap create mount points in wherever the link leads.
 */
function mountArgs(mount: Mount, consumed?: (slot: number) => number): string[] {
  const { path, source, writable } = mount;
  if ("tmpfs" in source) return writable ? ["--tmpfs", path] : ["--tmpfs", path, "--remount-ro", path];
  if (consumed && "slot" in source)
    return [writable ? "--bind-fd" : "--ro-bind-fd", String(consumed(source.slot)), path];
  return [writable ? "--bind" : "--ro-bind", refOf(source), path];
}

function refOf(source: Source): string {
  if ("slot" in source) return `/proc/self/fd/${source.slot}`;
  return "system" in source ? source.system : "tmpfs";
}

/** Shallowest first; a stable order among equals (by path), so the arguments are the same for the same plan. */
export function byDepth<T extends { path: string }>(items: readonly T[]): T[] {
  // Each depth counted once, not at every comparison (a plan has hundreds of mounts).
  const keyed = items.map((item) => ({ item, depth: item.path.split("/").length }));
  keyed.sort(
    (a, b) => a.depth - b.depth || (a.item.path < b.item.path ? -1 : a.item.path > b.item.path ? 1 : 0),
  );
  return keyed.map((k) => k.item);
}
