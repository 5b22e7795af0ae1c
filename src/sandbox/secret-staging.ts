/**
 * @module sandbox/secret-staging
 * A command cannot read a secret-named file the survey hid (`.env`, `*.pem`), but it can decide that the
 * person's next `git add -A` or `git commit -a` takes the file into the repository — from where every later
 * command and every reader of a push can read it (red team F14): by editing a `.gitignore` at any depth so
 * the file is no longer ignored, or by adding an index entry for it (`git update-index --add --cacheinfo …`).
 * Both are ordinary writes in the workspace, so no mount can stop them. Before each command the hidden
 * secret-named paths git would NOT stage (ignored, and not in the index) are noted; after it, each that git now
 * would stage is named — in the result and on toolgate's stderr (the person: the command shapes its own output).
 * Nothing is reverted: a `.gitignore` rewritten for a build folder may be wanted, and only the person can
 * tell; the line says what changed and how to undo it. Ignore rules as `workspace/ignore.ts` reads them (every
 * `.gitignore`, `.git/info/exclude`); the index with `git-index.ts`.
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { IgnoreRules, type PathPatternSet } from "../workspace/index.js";
import { bytesOf, rawOf, textOf } from "./descriptors.js";
import { indexedPaths } from "./git-index.js";
import type { Layout } from "./survey.js";

/** A hidden secret-named path git would not stage before the command. */
export interface UnstagedSecret {
  /** Absolute, as text. */
  path: string;
  /** The top of the repository holding it (a folder with a `.git` folder), as text. */
  top: string;
  isDir: boolean;
}

/**
 * The secret-named paths the layout hides inside its roots that the person's `git add -A` would not stage now:
 * ignored by git's rules and not in the index. Paths in no repository (or one whose `.git` is a file) are left
 * out: nothing stages them, or the index is elsewhere.
 */
export function unstagedSecrets(layout: Layout, secretSet: PathPatternSet): UnstagedSecret[] {
  if (layout.mode !== "workspace-write") return [];
  const roots = [...layout.baseline.keys()];
  const out: UnstagedSecret[] = [];
  const rules = new Map<string, IgnoreRules>();
  const indexes = new Map<string, Set<string> | undefined>();
  for (const [raw, kind] of layout.covers) {
    if (kind === "self") continue;
    const root = roots.find((r) => raw.startsWith(`${r}/`));
    if (!root || !secretSet.matches(textOf(raw.slice(root.length + 1)))) continue;
    const stat = lstatSync(bytesOf(raw), { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    const path = textOf(raw);
    const top = new IgnoreRules(dirname(path)).gitTop;
    if (!top || !lstatSync(join(top, ".git"), { throwIfNoEntry: false })?.isDirectory()) continue;
    const secret = { path, top, isDir: stat.isDirectory() };
    if (stagedBy(secret, rules, indexes) === undefined) out.push(secret);
  }
  return out;
}

/**
 * Lines for the result naming each of `before` that git would now stage, and why; none when nothing changed.
 * Rules and the index are read afresh.
 */
export function newlyStaged(before: readonly UnstagedSecret[]): string[] {
  const rules = new Map<string, IgnoreRules>();
  const indexes = new Map<string, Set<string> | undefined>();
  const lines: string[] = [];
  for (const secret of before) {
    const why = stagedBy(secret, rules, indexes);
    if (why === undefined) continue;
    const relative = secret.path.slice(secret.top.length + 1);
    lines.push(
      `[sandbox: ${relative} (a secret-named ${secret.isDir ? "folder" : "file"} in ${secret.top}, hidden from ` +
        `commands) is ${why} after this command: your next \`git add -A\` or \`git commit -a\` would commit its real content. ` +
        (why.startsWith("no longer")
          ? "Check the .gitignore change (`git diff -- '*.gitignore'`) before adding]"
          : `Undo with \`git rm -r --cached -- ${relative}\`]`),
    );
  }
  return lines;
}

/** Why git would stage `secret` now (undefined: it would not). */
function stagedBy(
  secret: UnstagedSecret,
  rules: Map<string, IgnoreRules>,
  indexes: Map<string, Set<string> | undefined>,
): string | undefined {
  if (!indexes.has(secret.top)) indexes.set(secret.top, indexedPaths(rawOf(join(secret.top, ".git"))));
  const names = indexes.get(secret.top);
  const relative = rawOf(secret.path.slice(secret.top.length + 1));
  // An index toolgate cannot read counts as tracking it: git might.
  if (names === undefined) return "in a git index toolgate cannot read";
  if (names.has(relative) || (secret.isDir && [...names].some((n) => n.startsWith(`${relative}/`))))
    return "now in git's index";
  let ignore = rules.get(secret.top);
  if (!ignore) {
    ignore = new IgnoreRules(secret.top);
    rules.set(secret.top, ignore);
  }
  return ignore.isIgnoredDeep(secret.path, secret.isDir) ? undefined : "no longer ignored by git";
}
