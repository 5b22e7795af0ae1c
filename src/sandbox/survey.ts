/**
 * @module sandbox/survey
 * Looks at the disk once per command to turn sandbox settings into a concrete {@link SandboxPlan}: which
 * protected paths exist (and which are missing and must be blocked from being created), which secret files and
 * credential folders exist to hide. The protected and secret lists are the workspace's — the same data the file
 * tools enforce — so the two can never disagree.
 */
import { lstatSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import {
  DEFAULT_READ_ASK_PATTERNS,
  isInsideOrEqual,
  PathPatternSet,
  PROTECTED_ENTRIES,
  USER_SECRET_PATHS,
  WORKSPACE_SECRET_PATHS,
} from "../workspace/index.js";
import type { PlannedPath, SandboxPlan } from "./bwrap-args.js";
import { isHeldPlaceholder } from "./placeholders.js";

/** What a plan is made from. */
export interface SurveyInput {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /** Canonical roots. */
  roots: readonly string[];
  cwd: string;
  /** Extra writable paths (absolute). */
  writable?: readonly string[];
  /** Extra unreadable paths (absolute). */
  hidden?: readonly string[];
  /** Extra protected patterns (`[files] protected`), relative gitignore patterns or absolute paths. */
  protectedExtra?: readonly string[];
  /** The home folder (default: the user's). */
  home?: string;
}

/** How deep below each root existing protected and secret paths are looked for (the root itself is depth 0). */
export const SCAN_DEPTH = 3;
/** At most this many folders are read per root; deeper trees rely on the root-level rules and the file tools. */
export const SCAN_MAX_DIRS = 2000;
/** Folders never descended into: what lives there runs as code anyway, and they are large. */
const SCAN_SKIP = new Set(["node_modules", ".git"]);

// Made on the first survey, not at load: a gate that runs no command does not pay for them (~3 ms).
let patterns: { protectedSet: PathPatternSet; secretSet: PathPatternSet } | undefined;
function builtinPatterns() {
  patterns ??= {
    protectedSet: new PathPatternSet(PROTECTED_ENTRIES.map((e) => e.pattern)),
    secretSet: new PathPatternSet(DEFAULT_READ_ASK_PATTERNS),
  };
  return patterns;
}
/** Entries whose match expands into sub-paths (`.git` → `.git/config`, `.git/hooks`), by lower-case name. */
const expanding = new Map(
  PROTECTED_ENTRIES.filter((e) => !/[/*?[]/.test(e.pattern) && e.sandbox.join() !== e.pattern).map((e) => [
    e.pattern.toLowerCase(),
    e,
  ]),
);

/** Why a command cannot be sandboxed as asked (fail closed). */
export class SandboxSetupError extends Error {
  override readonly name = "SandboxSetupError";
}

/**
 * Surveys the disk for `input` and returns the plan.
 * @throws SandboxSetupError when a protected path is a symbolic link (its target could be swapped under the
 * mount), or a writable path does not exist.
 */
export function surveySandbox(input: SurveyInput): SandboxPlan {
  const home = input.home ?? homedir();
  const readOnly = new Map<string, PlannedPath>();
  const hidden = new Map<string, PlannedPath>();
  const extraProtected = input.protectedExtra?.length ? new PathPatternSet(input.protectedExtra) : undefined;
  const { protectedSet, secretSet } = builtinPatterns();

  for (const root of input.roots) {
    if (input.mode === "workspace-write") {
      for (const entry of PROTECTED_ENTRIES) {
        for (const sub of entry.sandbox) addProtected(readOnly, root, join(root, sub), entry.init);
      }
    }
    for (const sub of WORKSPACE_SECRET_PATHS) {
      const path = join(root, sub);
      const type = typeOf(path);
      if (type === "dir" || type === "file") hidden.set(path, { path, type });
    }
    scan(root, (path, relative, isDir) => {
      if (secretSet.matches(relative)) {
        hidden.set(path, { path, type: isDir ? "dir" : "file" });
        return false;
      }
      if (protectedSet.matches(relative) || extraProtected?.matches(relative, path)) {
        if (input.mode === "read-only") return false;
        const expand = expanding.get(relative.split("/").pop()!.toLowerCase());
        if (expand && isDir) {
          for (const sub of expand.sandbox)
            addProtected(readOnly, root, join(dirname(path), sub), false, true);
        } else addProtected(readOnly, root, path, false, true);
        return false;
      }
      return true;
    });
  }
  if (extraProtected && input.mode === "workspace-write") {
    for (const path of input.protectedExtra ?? []) {
      if (isAbsolute(path) && input.roots.some((r) => isInsideOrEqual(r, path))) {
        addProtected(readOnly, input.roots[0]!, path, false, true);
      }
    }
  }

  const secrets = [...USER_SECRET_PATHS.map((p) => (p.startsWith("~/") ? join(home, p.slice(2)) : p))];
  for (const path of [...secrets, ...(input.hidden ?? [])]) {
    const type = typeOf(path);
    if (type !== "missing") hidden.set(path, { path, type: type === "dir" ? "dir" : "file" });
  }
  for (const path of input.writable ?? []) {
    if (typeOf(path) === "missing") {
      throw new SandboxSetupError(`[sandbox] writable path ${path} does not exist; create it or remove it`);
    }
  }
  return {
    mode: input.mode,
    network: input.network,
    roots: input.roots,
    writable: input.writable ?? [],
    readOnly: [...readOnly.values()],
    hidden: outermost([...hidden.values()]),
    cwd: input.cwd,
  };
}

/**
 * Records `path` as read-only. A missing path is blocked from being created only at the root's own level
 * (`existingOnly` for deeper finds), except a missing repository (`.git` itself) so `git init` works.
 */
function addProtected(
  into: Map<string, PlannedPath>,
  root: string,
  path: string,
  repositoryEntry: boolean,
  existingOnly = false,
): void {
  // A folder on the way that is a link would take the mounts (and the enclosing folder's writable bind) to its
  // target, outside the root: `ln -s ~ .github` would make the home folder writable. Fail closed.
  for (let at = dirname(path); at.length > root.length && at.startsWith(`${root}/`); at = dirname(at)) {
    if (typeOf(at) === "link") {
      throw new SandboxSetupError(
        `the folder ${at} holds a protected path but is a symbolic link, which the sandbox cannot hold ` +
          '(the mounts would follow it out of the workspace); replace the link with a folder, or set [sandbox] mode = "off"',
      );
    }
  }
  const type = typeOf(path);
  if (type === "link") {
    throw new SandboxSetupError(
      `the protected path ${path} is a symbolic link, which the sandbox cannot hold read-only ` +
        '(its target could be swapped); replace the link with the file, or set [sandbox] mode = "off"',
    );
  }
  if (type === "missing") {
    if (existingOnly) return;
    const first = path.slice(root.length + 1).split(sep)[0]!;
    const top = join(root, first);
    const topType = typeOf(top);
    if (repositoryEntry && topType === "missing") return; // `git init` may create it; see docs/sandbox.md.
    if (topType === "file" && top !== path) {
      // `.git` as a file points at the repository elsewhere (a worktree): the pointer itself stays read-only.
      into.set(top, { path: top, type: "file" });
      return;
    }
  }
  const held = type === "file" && isHeldPlaceholder(path);
  into.set(path, { path, type: type === "missing" || held ? "missing" : type === "dir" ? "dir" : "file" });
}

/**
 * Drops hidden paths inside another hidden folder: that folder is already an empty read-only tmpfs, where bwrap
 * could not make the inner mount point (the toolgate state folder inside the toolgate config folder).
 */
function outermost(paths: PlannedPath[]): PlannedPath[] {
  const dirs = paths.filter((p) => p.type === "dir").map((p) => p.path);
  return paths.filter((p) => !dirs.some((dir) => p.path.startsWith(`${dir}/`)));
}

function typeOf(path: string): "file" | "dir" | "link" | "missing" {
  try {
    // Most protected paths are missing: no exception (and its stack) built for each of them.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    if (stat.isSymbolicLink()) return "link";
    return stat.isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/** Breadth-first over folders below `root` to {@link SCAN_DEPTH}; `visit` returns false to not descend. */
function scan(root: string, visit: (path: string, relative: string, isDir: boolean) => boolean): void {
  let queue: string[] = [""];
  let read = 0;
  for (let depth = 1; depth <= SCAN_DEPTH && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const relativeDir of queue) {
      if (read++ >= SCAN_MAX_DIRS) return;
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(relativeDir ? join(root, relativeDir) : root, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
        const isDir = entry.isDirectory();
        const descend = visit(resolve(root, relative), relative, isDir);
        if (descend && isDir && !SCAN_SKIP.has(entry.name)) next.push(relative);
      }
    }
    queue = next;
  }
}
