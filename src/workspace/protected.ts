/**
 * @module workspace/protected
 * Protected paths: files and folders no file-writing tool may touch, even inside a root (version control
 * internals, toolgate's own policy and state, editor and shell start-up files, secrets). Matching is
 * gitignore-style and case-insensitive on every path component; the list can be extended, never emptied.
 */

import { isAbsolute, resolve } from "node:path";
import { escapeRegex, type GitignoreRules, gitignoreRules } from "../utils/index.js";
import { isInsideOrEqual } from "./paths.js";

import data from "./protected-paths.json" with { type: "json" };

/** One protected path: a gitignore pattern, why it is protected, and what the shell sandbox keeps read-only. */
export interface ProtectedEntry {
  /** Gitignore pattern relative to a root (no `/`: any depth; `**\/` for any depth with a `/`). */
  readonly pattern: string;
  readonly why: string;
  /**
   * Paths relative to where the pattern matched that the sandbox keeps read-only, also when they do not
   * exist yet (at each root). Absent: the pattern itself when it has no wildcard, else none.
   */
  readonly sandbox: readonly string[];
  /** A repository folder: when it does not exist, creating it (`git init`) is allowed. */
  readonly init: boolean;
  /**
   * A login or editor start-up file of the home folder: the sandbox blocks it in advance only at a root that
   * is the home folder (elsewhere nothing reads it at start-up; the check after each command still moves a new
   * one away).
   */
  readonly home: boolean;
}

const WILDCARD = /[*?[\]]/;

/** Validates the data file once at load; a malformed entry is a bug in toolgate, so it throws. */
function loadEntries(raw: unknown): readonly ProtectedEntry[] {
  if (!Array.isArray(raw)) throw new Error("protected-paths.json: `protected` must be an array");
  return Object.freeze(
    raw.map(
      (entry: { pattern?: unknown; why?: unknown; sandbox?: unknown; init?: unknown; home?: unknown }, i) => {
        if (typeof entry.pattern !== "string" || entry.pattern === "" || typeof entry.why !== "string") {
          throw new Error(`protected-paths.json: entry ${i} needs a pattern and a why`);
        }
        const literal = entry.pattern.replace(/^\*\*\//, "");
        const sandbox =
          entry.sandbox === undefined
            ? WILDCARD.test(literal)
              ? []
              : [literal]
            : (entry.sandbox as string[]);
        if (!Array.isArray(sandbox) || sandbox.some((p) => typeof p !== "string" || WILDCARD.test(p))) {
          throw new Error(
            `protected-paths.json: entry ${i} (${entry.pattern}): sandbox paths must be literal`,
          );
        }
        return Object.freeze({
          pattern: entry.pattern,
          why: entry.why,
          sandbox: Object.freeze([...sandbox]),
          init: entry.init === true,
          home: entry.home === true,
        });
      },
    ),
  );
}

/**
 * Everything protected (src/workspace/protected-paths.json): version control internals and CI files, toolgate's
 * and other agents' settings, editor settings, shell start-up files, secrets. File-writing tools refuse them;
 * the shell sandbox keeps them read-only — one list, so the two never disagree.
 */
export const PROTECTED_ENTRIES: readonly ProtectedEntry[] = loadEntries(data.protected);

/**
 * The default protected patterns (gitignore syntax, relative to each root; a pattern without `/` matches at
 * any depth, and a matching folder protects everything below it).
 */
export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = Object.freeze(
  PROTECTED_ENTRIES.map((e) => e.pattern),
);

/**
 * Patterns of files that may hold secrets: file-tool reads of them are confirmed by default (the policy decides),
 * and the shell sandbox makes them unreadable.
 */
export const DEFAULT_READ_ASK_PATTERNS: readonly string[] = Object.freeze([...data.secrets]);

/**
 * The user's credential files and folders (`~` is the home folder) and the host's daemon sockets (absolute):
 * unreadable and unconnectable inside the shell sandbox.
 */
export const USER_SECRET_PATHS: readonly string[] = Object.freeze([...data.userSecrets]);

/**
 * Paths below each root that the shell sandbox hides although a protected folder holds them (toolgate's
 * transcripts and project state record what a person approved reading).
 */
export const WORKSPACE_SECRET_PATHS: readonly string[] = Object.freeze([...data.workspaceSecrets]);

/** A component ending in a dot or a space (which Windows file systems drop). */
const ENDS_IN_DOT_OR_SPACE = /[. ](?:\/|$)/;

/** What splits a pattern into the runs of characters a matching path holds as they are. */
const NOT_LITERAL = /[*?[\]{}\\/\s,]+/;

/**
 * A test every path a pattern matches passes: its longest run of plain characters, which the path (or a
 * parent of it, or a component cut of trailing dots) must hold, in any case. Negations and comments match
 * nothing; undefined when the pattern has no such run (`*`), or has a bracket expression (`*.[ch]`: the
 * text inside stands for one character of it), so nothing can be skipped.
 */
function requiredText(pattern: string): string | null | undefined {
  if (pattern.includes("[")) return undefined;
  if (pattern.startsWith("!") || pattern.startsWith("#")) return null;
  let longest = "";
  for (const run of pattern.split(NOT_LITERAL)) if (run.length > longest.length) longest = run;
  return longest === "" ? undefined : longest;
}

/** A compiled set of path patterns: relative gitignore patterns plus absolute paths. */
export class PathPatternSet {
  private readonly matcher: GitignoreRules;
  private readonly absolutes: string[] = [];
  /**
   * Texts one of which every covered path holds: most paths hold none and skip the matcher (grep asks once
   * per file it prints). Undefined when some pattern has no such text.
   */
  private readonly required: RegExp | undefined;

  /** @param patterns gitignore patterns relative to a root, or absolute paths (a folder covers its contents) */
  constructor(patterns: readonly string[]) {
    this.matcher = gitignoreRules({ ignorecase: true });
    for (const pattern of patterns) {
      // A line break would make the matcher read one string as several patterns.
      if (typeof pattern !== "string" || pattern.trim() === "" || /[\r\n]/.test(pattern)) {
        throw new Error(`invalid protected path pattern: ${JSON.stringify(pattern)}`);
      }
      if (isAbsolute(pattern)) this.absolutes.push(resolve(pattern));
      else this.matcher.add(pattern);
    }
    const texts = patterns.filter((p) => !isAbsolute(p)).map(requiredText);
    if (!texts.includes(undefined)) {
      const alternatives = texts.filter((t) => typeof t === "string").map(escapeRegex);
      // The matcher ignores case, so the texts are found in any case too (both with the `i` flag alone).
      this.required = new RegExp(alternatives.length === 0 ? "(?!)" : alternatives.join("|"), "i");
    }
  }

  /** Adds absolute paths after construction (the canonical forms of configured folders). */
  addAbsolute(path: string): void {
    this.absolutes.push(resolve(path));
  }

  /**
   * True when `relative` (a `/`-separated path below a root) or `absolute` is covered. Each component is also
   * tried without trailing dots and spaces, which Windows file systems drop (`.git.` is `.git` there).
   */
  matches(relative: string, absolute?: string): boolean {
    if (absolute !== undefined && this.absolutes.length > 0) {
      const lower = absolute.toLowerCase();
      for (const entry of this.absolutes) {
        if (isInsideOrEqual(entry, absolute) || isInsideOrEqual(entry.toLowerCase(), lower)) return true;
      }
    }
    if (relative === "" || relative === ".") return false;
    if (this.required !== undefined && !this.required.test(relative)) return false;
    if (this.matcher.ignores(relative)) return true;
    // Most paths have no component ending in a dot or a space: nothing to strip (grep asks once per file).
    if (!ENDS_IN_DOT_OR_SPACE.test(relative)) return false;
    const stripped = relative
      .split("/")
      .map((part) => part.replace(/[. ]+$/, "") || part)
      .join("/");
    return stripped !== relative && this.matcher.ignores(stripped);
  }
}
