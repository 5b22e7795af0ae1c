/**
 * @module workspace/protected
 * Protected paths: files and folders no file-writing tool may touch, even inside a root (version control
 * internals, toolgate's own policy and state, editor and shell start-up files, secrets). Matching is
 * gitignore-style and case-insensitive on every path component; the list can be extended, never emptied.
 */

import { isAbsolute, resolve } from "node:path";
import { type Ignore, ignore } from "./load-ignore.js";
import { isInsideOrEqual } from "./paths.js";

/**
 * The default protected patterns (gitignore syntax, relative to each root; a pattern without `/` matches at
 * any depth, and a matching folder protects everything below it).
 */
export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = Object.freeze([
  // Version control internals: hooks and config run code on the next git command.
  ".git",
  ".gitmodules",
  ".gitconfig",
  ".config/git",
  ".husky",
  // toolgate's own policy, agents and state: an agent must not rewrite its own rules.
  ".toolgate",
  ".mcp.json",
  // Secrets.
  ".env",
  ".env.*",
  ".envrc",
  ".npmrc",
  ".netrc",
  ".pypirc",
  ".ssh",
  ".aws",
  ".gnupg",
  // Editor settings run tasks and extensions.
  ".vscode",
  ".idea",
  // Shell start-up files run on the next shell.
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".inputrc",
  ".config/fish",
]);

/**
 * Patterns whose reads should be confirmed by default (secrets and private keys). The workspace reports
 * them; the policy decides (a host can turn them into an `ask` rule).
 */
export const DEFAULT_READ_ASK_PATTERNS: readonly string[] = Object.freeze([
  ".env",
  ".env.*",
  ".envrc",
  ".netrc",
  ".npmrc",
  ".pypirc",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "id_rsa*",
  "id_ed25519*",
  "id_ecdsa*",
  "id_dsa*",
  ".ssh",
  ".aws/credentials",
  ".gnupg",
]);

/** A compiled set of path patterns: relative gitignore patterns plus absolute paths. */
export class PathPatternSet {
  private readonly matcher: Ignore;
  private readonly absolutes: string[] = [];

  /** @param patterns gitignore patterns relative to a root, or absolute paths (a folder covers its contents) */
  constructor(patterns: readonly string[]) {
    this.matcher = ignore({ ignorecase: true });
    for (const pattern of patterns) {
      if (typeof pattern !== "string" || pattern.trim() === "") {
        throw new Error(`invalid protected path pattern: ${JSON.stringify(pattern)}`);
      }
      if (isAbsolute(pattern)) this.absolutes.push(resolve(pattern));
      else this.matcher.add(pattern);
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
    if (absolute !== undefined) {
      const lower = absolute.toLowerCase();
      for (const entry of this.absolutes) {
        if (isInsideOrEqual(entry, absolute) || isInsideOrEqual(entry.toLowerCase(), lower)) return true;
      }
    }
    if (relative === "" || relative === ".") return false;
    if (this.matcher.ignores(relative)) return true;
    const stripped = relative
      .split("/")
      .map((part) => part.replace(/[. ]+$/, "") || part)
      .join("/");
    return stripped !== relative && this.matcher.ignores(stripped);
  }
}
