/**
 * @module workspace/workspace
 * The allowed roots and the one place paths are checked: `resolve` turns a tool's path argument into a
 * canonical path inside a root (or refuses it), and refuses protected paths for writing. The host fixes the
 * roots at construction; no tool argument can change them.
 */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { hardLinkError, isErrno, WorkspaceError } from "./errors.js";
import { IgnoreRules } from "./ignore.js";
import { absoluteFrom, canonicalize, isInsideOrEqual, pathSyntaxProblem, relativeInside } from "./paths.js";
import { DEFAULT_PROTECTED_PATTERNS, DEFAULT_READ_ASK_PATTERNS, PathPatternSet } from "./protected.js";

/** The built-in protected list, compiled once (on first use) for every workspace. */
let builtinProtected: PathPatternSet | undefined;

/** What a path is resolved for: reading a file, writing a file, or listing/searching a folder. */
export type PathIntent = "read" | "write" | "list";

/** Options of a {@link Workspace}. */
export interface WorkspaceOptions {
  /** Extra protected paths, added to the defaults: absolute paths or root-relative gitignore patterns. */
  protectedPaths?: readonly string[];
  /** Extra patterns whose reads should be confirmed, added to {@link DEFAULT_READ_ASK_PATTERNS}. */
  readAskPatterns?: readonly string[];
  /** Largest file read whole (bytes). Default 10 MiB. */
  maxFileBytes?: number;
}

/** A path argument after checking. */
export interface ResolvedPath {
  /** The argument as given. */
  input: string;
  /** The lexical absolute path (relative arguments are taken from the first root). */
  absolute: string;
  /** The canonical path: symlinks resolved. This is the path every operation uses. */
  canonical: string;
  /** The canonical root containing it. */
  root: string;
  /** `canonical` relative to `root`, `/`-separated; "" for the root itself. */
  relative: string;
  /** Whether something exists at `canonical` (at resolve time). */
  exists: boolean;
  /** Whether it is a directory (at resolve time). */
  isDirectory: boolean;
}

/** Default size limit for whole-file reads. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The allowed roots and the checks on every path a file tool touches. Create with {@link Workspace.create}. */
export class Workspace {
  /** Canonical roots, in the order given; relative paths resolve against the first. */
  readonly roots: readonly string[];
  readonly maxFileBytes: number;
  /** The roots, then the roots as given: where a path's root-relative form is looked for. */
  private readonly bases: readonly string[];
  /**
   * The built-in protected list and the host's extra paths, matched apart: an extra pattern (a `!` entry
   * of a config) can only ever add, never take a built-in path out.
   */
  private readonly protectedSets: readonly PathPatternSet[];
  private readonly readAskSet: PathPatternSet;
  private readonly ignoreByRoot = new Map<string, IgnoreRules>();

  private constructor(
    roots: string[],
    given: string[],
    protectedSets: readonly PathPatternSet[],
    options: WorkspaceOptions,
  ) {
    this.roots = Object.freeze(roots);
    this.bases = Object.freeze([...roots, ...given]);
    this.protectedSets = protectedSets;
    this.readAskSet = new PathPatternSet([...DEFAULT_READ_ASK_PATTERNS, ...(options.readAskPatterns ?? [])]);
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /**
   * Canonicalizes the roots and compiles the protected paths.
   * @throws Error when there is no root, a root does not exist or is not a directory, or a pattern is invalid
   */
  static async create(roots: readonly string[], options: WorkspaceOptions = {}): Promise<Workspace> {
    if (roots.length === 0) throw new Error("a workspace needs at least one root");
    const canonical: string[] = [];
    const given: string[] = [];
    for (const root of roots) {
      const problem = pathSyntaxProblem(root);
      if (problem) throw new Error(`workspace root "${root}" is refused: ${problem}`);
      let real: string;
      try {
        real = await realpath(root);
      } catch {
        throw new Error(`workspace root "${root}" does not exist`);
      }
      if (!(await stat(real)).isDirectory()) throw new Error(`workspace root "${root}" is not a directory`);
      canonical.push(real);
      given.push(resolvePath(root));
    }
    const extras = options.protectedPaths ?? [];
    const set = new PathPatternSet(extras);
    // Absolute extras are compared in both given and canonical form (a state dir behind a symlink).
    for (const extra of extras) {
      if (isAbsolute(extra)) set.addAbsolute(await canonicalize(extra).catch(() => resolvePath(extra)));
    }
    builtinProtected ??= new PathPatternSet(DEFAULT_PROTECTED_PATTERNS);
    return new Workspace(canonical, given, [builtinProtected, set], options);
  }

  /**
   * Checks a path argument and returns its canonical form.
   *
   * Order: refuse NUL bytes and Windows forms; take relative paths from the first root (`~` and `%2e%2e` are
   * ordinary names); canonicalize (symlinks followed, also dangling ones); require the result inside a root on
   * component boundaries; for `write`, refuse protected paths (checked on the canonical and the lexical form);
   * for `read`/`list`, require existence.
   *
   * @throws WorkspaceError `invalid_path`, `outside_root`, `protected`, `not_found` or `wrong_type`
   */
  async resolve(input: string, intent: PathIntent): Promise<ResolvedPath> {
    const { absolute, canonical, root, relative } = await this.locate(input);
    let isDirectory = false;
    let exists = true;
    try {
      isDirectory = (await stat(canonical)).isDirectory();
    } catch (error) {
      if (!isErrno(error, "ENOENT", "ENOTDIR")) throw error;
      exists = false;
    }
    const resolved: ResolvedPath = { input, absolute, canonical, root, relative, exists, isDirectory };
    if (intent === "write") {
      this.refuseProtected(resolved);
      if (isDirectory)
        throw new WorkspaceError("wrong_type", `path "${input}" is a directory`, input, canonical);
    } else if (!exists) {
      throw new WorkspaceError(
        "not_found",
        `${intent === "list" ? "directory" : "file"} not found: ${input}`,
        input,
      );
    }
    return resolved;
  }

  /**
   * The containment part of {@link resolve} and of writing: the same refusals of the path's form, of a path
   * outside every root, and, for `write`, of a protected path and of a file with other hard links, with the
   * same errors. A call is checked with it before anyone is asked about it (and by `toolgate policy check`);
   * `resolve` and the write check again when the tool runs.
   * @throws WorkspaceError `invalid_path`, `outside_root`, `protected` or `hard_link`
   */
  async contain(input: string, intent: PathIntent): Promise<void> {
    const located = await this.locate(input);
    if (intent !== "write") return;
    this.refuseProtected({ input, ...located });
    // The one refusal that depends on what is there: a write never replaces a file with other hard links.
    const links = await stat(located.canonical).then(
      (s) => (s.isFile() ? s.nlink : 1),
      () => 1,
    );
    if (links > 1) throw hardLinkError(input, located.canonical, links);
  }

  /** A path argument's absolute, canonical and root-relative forms; refuses bad forms and paths outside. */
  private async locate(
    input: string,
  ): Promise<Pick<ResolvedPath, "absolute" | "canonical" | "root" | "relative">> {
    if (typeof input !== "string")
      throw new WorkspaceError("invalid_path", "path must be a string", String(input));
    const problem = pathSyntaxProblem(input);
    if (problem)
      throw new WorkspaceError("invalid_path", `path "${printable(input)}" is refused: ${problem}`, input);
    const absolute = resolvePath(this.roots[0] as string, input);
    const canonical = await canonicalize(absolute);
    const root = this.rootOf(canonical);
    if (root === undefined) {
      const via = canonical === absolute ? "" : ` (it resolves to "${canonical}")`;
      throw new WorkspaceError(
        "outside_root",
        `path "${input}" is outside the workspace roots${via}; allowed roots: ${this.roots.join(", ")}`,
        input,
        canonical,
      );
    }
    return { absolute, canonical, root, relative: relativeInside(root, canonical) };
  }

  private refuseProtected(path: Pick<ResolvedPath, "input" | "absolute" | "canonical" | "relative">): void {
    if (!this.isProtected(path)) return;
    throw new WorkspaceError(
      "protected",
      `path "${path.input}" is protected and cannot be written by file tools (protected: ${path.relative || path.canonical})`,
      path.input,
      path.canonical,
    );
  }

  /** The canonical root containing `canonical` (the deepest, when roots nest), or undefined. */
  rootOf(canonical: string): string | undefined {
    let best: string | undefined;
    for (const root of this.roots) {
      if (isInsideOrEqual(root, canonical) && (best === undefined || root.length > best.length)) best = root;
    }
    return best;
  }

  /** True when a resolved path is protected, judged on its canonical path and on the path as written. */
  isProtected(resolved: Pick<ResolvedPath, "canonical" | "absolute" | "relative">): boolean {
    for (const set of this.protectedSets) {
      if (set.matches(resolved.relative, resolved.canonical)) return true;
      for (const base of this.bases) {
        if (!isInsideOrEqual(base, resolved.absolute)) continue;
        if (set.matches(relativeInside(base, resolved.absolute), resolved.absolute)) return true;
      }
    }
    return false;
  }

  /**
   * True when reading `path` should be confirmed (secrets, keys). Lexical and synchronous, for a tool's
   * risk: a path that cannot even be parsed counts as sensitive (fail closed).
   */
  isReadSensitive(path: string): boolean {
    if (typeof path !== "string" || pathSyntaxProblem(path)) return true;
    const absolute = absoluteFrom(this.roots[0] as string, path);
    for (const base of this.bases) {
      if (isInsideOrEqual(base, absolute))
        return this.readAskSet.matches(relativeInside(base, absolute), absolute);
    }
    return this.readAskSet.matches("", absolute) || this.readAskSet.matches(absolute.replace(/^\/+/, ""));
  }

  /** How tools print a path: relative to the first root when inside it, else absolute. */
  displayPath(canonical: string): string {
    const first = this.roots[0] as string;
    if (isInsideOrEqual(first, canonical)) return relativeInside(first, canonical) || ".";
    return canonical;
  }

  /** The ignore rules for a root (cached; rule files are read lazily). */
  ignoreRules(root: string): IgnoreRules {
    let rules = this.ignoreByRoot.get(root);
    if (!rules) {
      rules = new IgnoreRules(root);
      this.ignoreByRoot.set(root, rules);
    }
    return rules;
  }

  /**
   * The canonicalizer the policy's path conditions use: the canonical path and its root-relative form, or
   * undefined when the value is not a path inside the roots (the policy then fails closed).
   */
  async canonicalizeForPolicy(raw: unknown): Promise<{ relative: string; canonical: string } | undefined> {
    if (typeof raw !== "string" || pathSyntaxProblem(raw)) return undefined;
    try {
      const canonical = await canonicalize(resolvePath(this.roots[0] as string, raw));
      const root = this.rootOf(canonical);
      return root === undefined ? undefined : { canonical, relative: relativeInside(root, canonical) };
    } catch {
      return undefined;
    }
  }
}

/** A path safe to print in a message: control characters escaped. */
function printable(path: string): string {
  return path.replace(/[\x00-\x1f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
