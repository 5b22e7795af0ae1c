/**
 * @module sandbox/git-repo-config
 * What a sandboxed command sees of a repository's own config files (`.git/config`, `config.worktree`, a
 * submodule's): a copy written before the command and mounted read-only over the file — which commands could
 * not write anyway — with the keys that carry credentials dropped (git-repo-config.json), URLs without their
 * user and password, and any key or value with a credential's shape dropped (credential-shapes.json). Git
 * inside reads the copy, so status, diff, log, commit and branch work as on the host; the host's file is
 * untouched. Read with git itself (`--file F --no-includes`, which runs no program); when git cannot read the
 * file the command gets an empty config and a note (fail closed).
 */
import { credentialShaped } from "./credential-shapes.js";
import data from "./git-repo-config.json" with { type: "json" };
import { type GitSettingFilter, gitConfigCopyFile } from "./git-user-config.js";

const patternOf = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
const DROP = data.drop.map((e) => patternOf(e.key));

/** `scheme://user:password@host…` → `scheme://host…` (each URL in the text). */
function withoutUserinfo(text: string): string {
  return text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\s@]*@/g, "$1");
}

/**
 * What the copy keeps of one setting of a repository's config: undefined to drop it, else the setting with any
 * URL's user and password taken out.
 * @example repoSetting({ key: "remote.origin.url", value: "https://u:ghp_x@github.com/a/b" }) // { key: "remote.origin.url", value: "https://github.com/a/b" }
 * @example repoSetting({ key: "http.https://github.com/.extraheader", value: "AUTHORIZATION: basic eA==" }) // undefined
 */
export const repoSetting: GitSettingFilter = (setting) => {
  const key = setting.key.toLowerCase();
  if (DROP.some((p) => p.test(key)) || credentialShaped(setting.key, true)) return undefined;
  if (setting.value === undefined) return setting;
  const value = withoutUserinfo(setting.value);
  return credentialShaped(value) ? undefined : { key: setting.key, value };
};

/**
 * A private file (see gitConfigCopyFile) holding the filtered copy of the repository config `file`; made again
 * only when the file changed.
 */
export function repoConfigCopyFile(file: string): { path: string; note?: string } {
  return gitConfigCopyFile(file, repoSetting);
}
