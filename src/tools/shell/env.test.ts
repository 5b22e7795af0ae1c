import { describe, expect, it } from "vitest";
import { dropReason, GIT_CONFIG_OVERRIDES, SHELL_FIXED_ENV, sanitizeEnv } from "./env.js";

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

describe("git's switches", () => {
  it.each([
    ["GIT_DIR", "sub"],
    ["GIT_WORK_TREE", ".."],
    ["GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='x'"],
    ["GIT_CONFIG_GLOBAL", "./evil.gitconfig"],
    ["GIT_CONFIG_COUNT", "0"],
    ["GIT_CONFIG_KEY_0", "core.fsmonitor"],
    ["GIT_EXEC_PATH", "./bin"],
    ["GIT_TEMPLATE_DIR", "./t"],
    ["GIT_SSH", "./ssh"],
    ["GIT_TRACE", "/tmp/x"],
    ["GIT_ATTR_SOURCE", "HEAD"],
  ])("a host cannot pass %s", (name, value) => {
    expect(dropReason(name, value)).toBe("hook");
  });

  it("a host may pass the commit identity", () => {
    const env = sanitizeEnv({}, { GIT_AUTHOR_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com" });
    expect(env).toEqual({ GIT_AUTHOR_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com" });
  });

  it("every command gets the overrides as GIT_CONFIG_COUNT / KEY_n / VALUE_n", () => {
    const keys = GIT_CONFIG_OVERRIDES.map((o) => o.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        "safe.bareRepository",
        "core.fsmonitor",
        "core.hooksPath",
        "protocol.ext.allow",
      ]),
    );
    expect(SHELL_FIXED_ENV["GIT_CONFIG_COUNT"]).toBe(String(keys.length));
    GIT_CONFIG_OVERRIDES.forEach((o, i) => {
      expect(SHELL_FIXED_ENV[`GIT_CONFIG_KEY_${i}`]).toBe(o.key);
      expect(SHELL_FIXED_ENV[`GIT_CONFIG_VALUE_${i}`]).toBe(o.value);
      expect(o.why.length).toBeGreaterThan(10);
    });
    expect(SHELL_FIXED_ENV).toMatchObject({ GIT_PAGER: "cat", GIT_EDITOR: "true", GIT_TERMINAL_PROMPT: "0" });
  });
});
