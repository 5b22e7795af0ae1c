import { describe, expect, it } from "vitest";
import { dropReason, sanitizeEnv } from "./env.js";

describe("sanitizeEnv", () => {
  it("keeps allowlisted parent variables and drops the rest", () => {
    const env = sanitizeEnv({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      XDG_CACHE_HOME: "/c",
      TERM: "xterm",
      RANDOM_APP_SETTING: "x",
      npm_config_registry: "https://registry.npmjs.org/",
      UNDEFINED: undefined,
    });
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      XDG_CACHE_HOME: "/c",
      TERM: "xterm",
    });
  });

  it("adds the host's extras, filtered the same way", () => {
    const env = sanitizeEnv({ PATH: "/bin" }, { CI: "1", GITHUB_TOKEN: "x", LD_PRELOAD: "/x.so" });
    expect(env).toEqual({ PATH: "/bin", CI: "1" });
  });

  it.each([
    ["GITHUB_TOKEN", "abc", "secret name"],
    ["my_secret", "abc", "secret name"],
    ["OPENAI_API_KEY", "abc", "secret name"],
    ["DB_PASSWORD", "abc", "secret name"],
    ["MYSQL_PASSWD", "abc", "secret name"],
    ["DB_PASS", "abc", "secret name"],
    ["MYSQL_PWD", "abc", "secret name"],
    ["GOOGLE_APPLICATION_CREDENTIALS", "/x.json", "secret name"],
    ["NPM_AUTH", "abc", "secret name"],
    ["Authorization", "abc", "secret name"],
    ["SESSION_ID", "abc", "secret name"],
    ["HARMLESS", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc", "secret value"],
    ["HARMLESS", "-----BEGIN RSA PRIVATE KEY-----", "secret value"],
    ["HARMLESS", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "secret value"],
    ["HARMLESS", "sk_live_0123456789abcdefABCDEF", "secret value"],
    ["HARMLESS", "gho_0123456789abcdefghijABCDEFGHIJ012345", "secret value"],
    ["HARMLESS", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "secret value"],
    ["HARMLESS", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "secret value"],
    ["HARMLESS", "sk-ant-api03-abcdefghijklmnop", "secret value"],
    ["HARMLESS", "xoxb-1234567890-abcdefghij", "secret value"],
    ["HARMLESS", "xoxp-1234567890-abcdefghij", "secret value"],
    ["HARMLESS", "AKIAIOSFODNN7EXAMPLE", "secret value"],
    ["HARMLESS", "ASIAIOSFODNN7EXAMPLE", "secret value"],
    ["HARMLESS", "glpat-abcdefghijklmnopqrst", "secret value"],
    ["HARMLESS", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "secret value"],
    ["http_proxy", "http://user:pass@proxy:8080", "secret value"],
    ["DATABASE_URL", "postgres://app:hunter2@db/app", "secret value"],
    ["LD_PRELOAD", "/tmp/x.so", "hook"],
    ["LD_LIBRARY_PATH", "/tmp", "hook"],
    ["DYLD_INSERT_LIBRARIES", "/tmp/x.dylib", "hook"],
    ["NODE_OPTIONS", "--require /tmp/x.js", "hook"],
    ["BASH_ENV", "/tmp/x", "hook"],
    ["ENV", "/tmp/x", "hook"],
    ["PROMPT_COMMAND", "rm x", "hook"],
    ["BASH_FUNC_ls%%", "() { rm x; }", "invalid name"],
    ["BASH_FUNC_ls", "() { rm x; }", "hook"],
    ["PS4", "$(rm x)", "hook"],
    ["SHELLOPTS", "xtrace", "hook"],
    ["BASHOPTS", "x", "hook"],
    ["IFS", "x", "hook"],
    ["CDPATH", "/", "hook"],
    ["GLOBIGNORE", "*", "hook"],
    ["GIT_CONFIG_COUNT", "1", "hook"],
    ["GIT_SSH_COMMAND", "rm x", "hook"],
    ["PYTHONSTARTUP", "/tmp/x.py", "hook"],
    ["A=B", "x", "invalid name"],
    ["NUL", "a\0b", "invalid value"],
  ])("drops %s=%j (%s)", (name, value, reason) => {
    expect(dropReason(name, value)).toBe(reason);
    expect(sanitizeEnv({}, { [name]: value })).toEqual({});
  });

  it.each([
    ["CI", "true"],
    ["NODE_ENV", "test"],
    ["URL", "https://example.com/path"],
    ["PROXY", "http://proxy:8080"],
    ["SHORT_SK", "sk-1"],
  ])("keeps %s=%j", (name, value) => {
    expect(dropReason(name, value)).toBeUndefined();
    expect(sanitizeEnv({}, { [name]: value })).toEqual({ [name]: value });
  });
});
