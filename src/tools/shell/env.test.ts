import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dropReason, GIT_CONFIG_OVERRIDES, loadShellEnvTables, SHELL_FIXED_ENV, sanitizeEnv } from "./env.js";

const CORPUS = JSON.parse(readFileSync(new URL("./testdata/env.json", import.meta.url), "utf8")) as {
  cases: { note: string; name: string; value: string; want: string | null }[];
};
const TABLES = JSON.parse(readFileSync(new URL("./shell-env.json", import.meta.url), "utf8")) as Record<
  string,
  unknown
>;

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

  it.each(CORPUS.cases.map((c) => [c.note, c] as const))("%s (testdata/env.json)", (_note, c) => {
    if (c.want === null) {
      expect(dropReason(c.name, c.value)).toBeUndefined();
      expect(sanitizeEnv({}, { [c.name]: c.value })).toEqual({ [c.name]: c.value });
    } else {
      expect(dropReason(c.name, c.value)).toBe(c.want);
      expect(sanitizeEnv({}, { [c.name]: c.value })).toEqual({});
    }
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

describe("shell-env.json", () => {
  it("loads", () => {
    const tables = loadShellEnvTables(TABLES);
    expect(tables.passThrough.has("PATH")).toBe(true);
    expect(tables.secretName.test("github_token")).toBe(true);
  });

  it.each([
    [{ ...TABLES, allow: [] }, 'unknown key "allow"'],
    [{ ...TABLES, never: "IFS" }, "never must be a list of non-empty strings"],
    [{ ...TABLES, passThrough: undefined }, "passThrough must be a list"],
    [{ ...TABLES, secretNames: "" }, "secretNames must be a pattern"],
    [{ ...TABLES, secretValues: ["sk-[a-z"] }, "secretValues[0]"],
  ])("refuses a malformed table at load (%#)", (bad, message) => {
    expect(() => loadShellEnvTables(bad)).toThrow(message);
  });
});
