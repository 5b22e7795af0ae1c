/**
 * @module sandbox/git-user-config
 * What a sandboxed command sees of the user's own git config files (~/.gitconfig, ~/.config/git/config): a
 * copy keeping only the keys of git-user-config.json (identity, line endings, colours, aliases that are not
 * shell commands, …). Those files often hold tokens (`url.<with token>.insteadOf`, `http.*.extraheader`,
 * `credential.helper = !echo password=…`, `include.path` of another file), so the original is never shown;
 * a kept key whose value has a credential's shape (credential-shapes.json: a token in an alias) is dropped too.
 * The file is read with git itself (`--file F --no-includes`, which runs no program); when that fails the
 * command gets an empty config and a note (fail closed).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { credentialShaped } from "./credential-shapes.js";
import data from "./git-user-config.json" with { type: "json" };
import { hostProgram, SYSTEM_PATH } from "./host-programs.js";

/** One setting as git lists it: the key (section and name lower-cased) and its value (undefined: a bare key). */
export interface GitSetting {
  key: string;
  value: string | undefined;
}

const patternOf = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
const KEEP = data.keep.map((e) => patternOf(e.key));
const DROP = data.drop.map((e) => patternOf(e.key));
const DROP_VALUES = data.dropValues.map((e) => ({
  key: patternOf(e.key),
  value: new RegExp(e.pattern, "i"),
}));

/**
 * Whether a setting goes into the copy a command sees.
 * @example keptSetting({ key: "user.name", value: "Ada" }) // true
 * @example keptSetting({ key: "alias.up", value: "!git push" }) // false
 */
export function keptSetting(setting: GitSetting): boolean {
  const key = setting.key.toLowerCase();
  if (!KEEP.some((p) => p.test(key)) || DROP.some((p) => p.test(key))) return false;
  const value = setting.value ?? "";
  return !DROP_VALUES.some((d) => d.key.test(key) && d.value.test(value)) && !credentialShaped(value);
}

/** Parses `git config --list -z` output: `key\nvalue\0` per setting (`key\0` for a bare key). */
export function parseListZ(output: string): GitSetting[] {
  return output
    .split("\0")
    .filter((entry) => entry !== "")
    .map((entry) => {
      const at = entry.indexOf("\n");
      return at < 0
        ? { key: entry, value: undefined }
        : { key: entry.slice(0, at), value: entry.slice(at + 1) };
    });
}

/** Writes settings back in git's config syntax (one section header per setting: simple and always valid). */
export function formatGitConfig(settings: readonly GitSetting[]): string {
  const quote = (s: string) =>
    s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return settings
    .map(({ key, value }) => {
      const first = key.indexOf(".");
      const last = key.lastIndexOf(".");
      const section = key.slice(0, first);
      const sub = last > first ? ` "${quote(key.slice(first + 1, last))}"` : "";
      const line = value === undefined ? key.slice(last + 1) : `${key.slice(last + 1)} = "${quote(value)}"`;
      return `[${section}${sub}]\n\t${line}\n`;
    })
    .join("");
}

/** The copy of one config file: its text, and a note when the original could not be read. */
export interface GitConfigCopy {
  text: string;
  note?: string;
}

/** What a copy keeps of one setting: the setting (maybe rewritten), or undefined to drop it. */
export type GitSettingFilter = (setting: GitSetting) => GitSetting | undefined;

const userFilter: GitSettingFilter = (setting) => (keptSetting(setting) ? setting : undefined);

/**
 * Reads `file` with git and keeps what `filter` allows ({@link keptSetting} by default); an unreadable or invalid
 * file gives an empty copy and a note, never the original.
 */
export function filteredGitConfig(
  file: string,
  git = hostProgram("git"),
  filter = userFilter,
): GitConfigCopy {
  let output: string;
  try {
    // Never a git from a folder a command can write (host-programs.ts).
    if (git === undefined) throw new Error("git is not installed in a system folder");
    output = execFileSync(git, ["config", "--file", file, "--no-includes", "--list", "-z"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      // Only the named file: no system config, no variables naming others.
      env: { PATH: SYSTEM_PATH, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
      timeout: 10_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const why = (error as { stderr?: string }).stderr?.trim().split("\n")[0] || (error as Error).message;
    return {
      text: "",
      note: `[sandbox: ${file} is shown empty to the command: git could not read it (${why})]`,
    };
  }
  const kept = parseListZ(output).flatMap((setting) => filter(setting) ?? []);
  return { text: formatGitConfig(kept) };
}

let folder: string | undefined;
const made = new Map<string, { stamp: string; filter: GitSettingFilter; path: string; note?: string }>();

/**
 * A private file (0600, in a 0700 folder of this process's, removed at exit) holding the filtered copy of
 * `file`; made again only when the file changed (same size, times and inode: the same copy).
 */
export function gitConfigCopyFile(file: string, filter = userFilter): { path: string; note?: string } {
  let stamp = "";
  try {
    const s = statSync(file, { bigint: true });
    stamp = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    // Unreadable: filteredGitConfig says why.
  }
  const known = made.get(file);
  if (known && stamp !== "" && known.stamp === stamp && known.filter === filter) return known;
  const copy = filteredGitConfig(file, undefined, filter);
  if (folder === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-gitconfig-"));
    chmodSync(dir, 0o700);
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    folder = dir;
  }
  const name = createHash("sha256").update(copy.text).digest("hex").slice(0, 16);
  const path = join(folder, `gitconfig-${name}`);
  writeFileSync(path, copy.text, { mode: 0o600 });
  const entry = { stamp, filter, path, ...(copy.note ? { note: copy.note } : {}) };
  made.set(file, entry);
  return entry;
}

/**
 * The user's own git config files inside `home` (text paths): ~/.gitconfig, ~/.config/git/config and git's
 * XDG config file when XDG_CONFIG_HOME names another place in the home folder.
 */
export function userGitConfigPaths(home: string, xdgConfigHome: string | undefined): string[] {
  const paths = [join(home, ".gitconfig"), join(home, ".config", "git", "config")];
  if (xdgConfigHome && isAbsolute(xdgConfigHome)) paths.push(join(xdgConfigHome, "git", "config"));
  return [...new Set(paths)].filter((p) => p.startsWith(`${home}/`));
}
