/**
 * @module sandbox/git-repo-config
 * What a sandboxed command sees of a repository's own config files (`.git/config`, `config.worktree`, a
 * submodule's): a copy written before the command and mounted read-only over the file — which commands could
 * not write anyway — keeping only the keys of git-repo-config.json (an allow-list: a credential under a key
 * nobody thought to name is dropped because it is not listed), URLs without their user, password, query and
 * fragment, and no key or value with a credential's shape (credential-shapes.json). Git inside reads the copy,
 * so status, diff, log, commit, branch and fetch from a path work as on the host; the host's file is
 * untouched. Read with git itself (`--file F --no-includes`, which runs no program); when git cannot read the
 * file the command gets an empty config and a note (fail closed).
 */
import { credentialShaped } from "./credential-shapes.js";
import data from "./git-repo-config.json" with { type: "json" };
import { type GitSettingFilter, gitConfigCopyFile } from "./git-user-config.js";

const patternOf = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);

interface KeepRule {
  key: RegExp;
  url: boolean;
  values: RegExp | undefined;
}

const KEEP: KeepRule[] = data.keep.map((e) => {
  const entry = e as { key: string; url?: boolean; values?: string };
  return {
    key: patternOf(entry.key),
    url: entry.url === true,
    values: entry.values === undefined ? undefined : new RegExp(entry.values, "i"),
  };
});

/** `scheme://[userinfo@]host/path[?query][#fragment]`: userinfo runs to the last `@` before the path. */
const SCHEME_URL = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:[^/?#]*@)?([^?#]*)/s;
/** git's scp-like form with a password, `user:password@host:path` (no `/` before the first `:`). */
const SCP_LIKE = /^[^/@:]*:.*@([^/:@]+:)/s;

/**
 * A remote's URL as a command may see it: without user and password, query and fragment (where tokens go:
 * `?access_token=…`, `?X-Amz-Signature=…`); a plain user of git's scp-like form (`git@host:x`) stays.
 * @example cleanUrl("https://me:ghp_x@github.com/a/b.git?access_token=t") // "https://github.com/a/b.git"
 * @example cleanUrl("deploy:pw@git.example.org:acme/app.git") // "git.example.org:acme/app.git"
 * @example cleanUrl("/srv/git/app.git") // "/srv/git/app.git"
 */
export function cleanUrl(value: string): string {
  const url = SCHEME_URL.exec(value);
  if (url) return `${url[1]}${url[2]}`;
  return value.replace(SCP_LIKE, "$1");
}

/**
 * What the copy keeps of one setting of a repository's config: undefined to drop it (not on the allow-list,
 * a value its rule refuses, or a credential's shape), else the setting with a URL value cleaned.
 * @example repoSetting({ key: "remote.origin.url", value: "https://u:ghp_x@github.com/a/b" }) // { key: "remote.origin.url", value: "https://github.com/a/b" }
 * @example repoSetting({ key: "gitlab.personalaccesstoken", value: "glptt-x" }) // undefined
 * @example repoSetting({ key: "core.fsmonitor", value: "./watch.sh" }) // undefined
 */
export const repoSetting: GitSettingFilter = (setting) => {
  const rule = KEEP.find((r) => r.key.test(setting.key.toLowerCase()));
  if (!rule || credentialShaped(setting.key, true)) return undefined;
  if (rule.values && !rule.values.test(setting.value ?? "true")) return undefined;
  if (setting.value === undefined) return setting;
  const value = rule.url ? cleanUrl(setting.value) : setting.value;
  return credentialShaped(value) ? undefined : { key: setting.key, value };
};

/**
 * A private file (see gitConfigCopyFile) holding the filtered copy of the repository config `file`; made again
 * only when the file changed.
 */
export function repoConfigCopyFile(file: string): { path: string; note?: string } {
  return gitConfigCopyFile(file, repoSetting);
}
