/**
 * @module sandbox/bwrap-args
 * The one job of this file: turn a {@link SandboxPlan} (every path already surveyed) into bubblewrap arguments.
 * Pure — no file system, no environment — so the whole profile is table-tested. Order matters to bwrap: a later
 * mount covers an earlier one, so the layers go system (read-only) → private /tmp → writable paths → read-only
 * protected paths → hidden secrets.
 */

/** The sandbox modes a user can configure. `auto` is resolved to one of the others before a plan is made. */
export type SandboxMode = "auto" | "workspace-write" | "read-only" | "off";

/** A path the plan mounts, with what is there now (decides how it is covered). */
export interface PlannedPath {
  path: string;
  /** `missing`: nothing there yet; the mount blocks its creation. */
  type: "file" | "dir" | "missing";
}

/** Everything bwrap needs for one command, decided by the survey. */
export interface SandboxPlan {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /** Canonical workspace roots (writable in `workspace-write`, visible read-only in `read-only`). */
  roots: readonly string[];
  /** Extra writable paths (`[sandbox] writable`), existing folders or files. */
  writable: readonly string[];
  /** Paths inside writable places that stay read-only (protected), existing or not. */
  readOnly: readonly PlannedPath[];
  /** Paths nobody may read (secrets, credential folders, `[sandbox] hidden`); existing ones only. */
  hidden: readonly PlannedPath[];
  /** Working directory of the command (inside a root). */
  cwd: string;
  /** Extra variables set inside (TMPDIR and git's discovery switch are always set). */
  setenv?: Readonly<Record<string, string>>;
}

/**
 * bwrap arguments for `plan`, up to and including `--`; the command (shell and its arguments) follows.
 * @example spawn("bwrap", [...bwrapArgs(plan), "/bin/bash", "-c", "ls"])
 */
export function bwrapArgs(plan: SandboxPlan): string[] {
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
  const writable = plan.mode === "workspace-write" ? [...plan.roots, ...plan.writable] : plan.writable;
  // Shallow paths first, so a deeper mount is not covered by a later shallower one.
  for (const path of byDepth(writable)) args.push("--bind", path, path);
  if (plan.mode === "read-only") {
    // Roots under /tmp would vanish behind the private /tmp: show them again, read-only.
    for (const path of byDepth(plan.roots)) args.push("--ro-bind", path, path);
  }
  // Each folder between a root and a protected path becomes a mount point of its own (bound onto itself), so it
  // cannot be renamed away and replaced: `mv .git .git-old; mkdir .git` fails. Before the read-only mounts: a
  // later writable bind would make the read-only mounts inside it writable again.
  for (const path of byDepth(enclosing(plan))) args.push("--bind", path, path);
  for (const entry of byDepth(plan.readOnly)) {
    // A missing path gets /dev/null as its mount point: creating, writing and reading it all fail.
    args.push("--ro-bind", entry.type === "missing" ? "/dev/null" : entry.path, entry.path);
  }
  for (const entry of byDepth(plan.hidden)) {
    if (entry.type === "dir") args.push("--tmpfs", entry.path, "--remount-ro", entry.path);
    else if (entry.type === "file") args.push("--ro-bind", "/dev/null", entry.path);
  }
  const env = { TMPDIR: "/tmp", GIT_DISCOVERY_ACROSS_FILESYSTEM: "1", ...plan.setenv };
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--chdir", plan.cwd, "--");
  return args;
}

/** The folders strictly between a writable root and each read-only path, shallowest first. */
function enclosing(plan: SandboxPlan): string[] {
  if (plan.mode !== "workspace-write") return [];
  const folders = new Set<string>();
  for (const entry of plan.readOnly) {
    const root = plan.roots.find((r) => entry.path.startsWith(`${r}/`));
    if (!root) continue;
    const parts = entry.path.slice(root.length + 1).split("/");
    for (let i = 1; i < parts.length; i++) folders.add(`${root}/${parts.slice(0, i).join("/")}`);
  }
  return [...folders];
}

function byDepth<T extends string | PlannedPath>(items: readonly T[]): T[] {
  const path = (item: T) => (typeof item === "string" ? item : item.path);
  const depth = (item: T) => path(item).split("/").length;
  return [...items].sort(
    (a, b) => depth(a) - depth(b) || (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0),
  );
}
