import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_CONFIRM_TIMEOUT_MS } from "../core/index.js";
import { loadConfigFile, parseConfig, settingsFromConfig } from "./config.js";
import { CONFIG_SCHEMA } from "./schema.js";
import { checkedKeys, SECURITY_KEYS, withoutSecurityKeys } from "./trust.js";

describe("config.toml", () => {
  it("accepts the documented settings", () => {
    const cfg = parseConfig(
      `[web]\nallow_hosts = ["127.0.0.1:4000"]\n[search]\nbackend = "searxng"\nurl = "http://127.0.0.1:8888"\n[limits]\nmax_chars = 1000\n`,
      "c.toml",
    );
    expect(cfg).toEqual({
      web: { allow_hosts: ["127.0.0.1:4000"] },
      search: { backend: "searxng", url: "http://127.0.0.1:8888" },
      limits: { max_chars: 1000 },
    });
  });

  it.each([
    ["[wbe]\nallow_hosts = []", /^c\.toml: unknown section \[wbe\] \(known: web, search, /],
    [
      "[web]\nallow_host = []",
      /^c\.toml: unknown key web\.allow_host \(known in \[web\]: allow_hosts, timeout_ms, max_bytes\)$/,
    ],
    ['[web]\nallow_hosts = "x"', /^c\.toml: web\.allow_hosts must be an array of strings$/],
    [
      '[search]\nbackend = "bing"',
      /^c\.toml: search\.backend must be one of "duckduckgo", "searxng", "brave", not "bing"$/,
    ],
    ["[limits]\nmax_chars = -1", /^c\.toml: limits\.max_chars must be a whole number ≥ 0$/],
    ["web = 1", /^c\.toml: web must be a table \(\[web\]\)$/],
    ["[web\n", /^c\.toml: not valid TOML: /],
  ])("refuses %j with a clear error", (text, message) => {
    expect(() => parseConfig(text, "c.toml")).toThrowError(ConfigError);
    expect(() => parseConfig(text, "c.toml")).toThrowError(message);
  });

  it("reads a file and names it in errors", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-config-"));
    const file = join(dir, "config.toml");
    await writeFile(file, "[audit]\nfile = 'audit.jsonl'\n");
    expect(await loadConfigFile(file)).toEqual({ audit: { file: "audit.jsonl" } });
    await expect(loadConfigFile(join(dir, "missing.toml"))).rejects.toThrowError(
      /missing\.toml: cannot read the config file \(ENOENT\)/,
    );
  });
});

describe("settingsFromConfig", () => {
  it("turns the file's keys into camelCase settings with every default applied", () => {
    const settings = settingsFromConfig(
      parseConfig(`[limits]\nmax_chars = 1000\n[llm]\napi_key_env = "K"\n`, "c.toml"),
    );
    expect(settings.limits).toEqual({ maxChars: 1000, maxLines: 2000 });
    expect(settings.llm).toEqual({ provider: "ollama", apiKeyEnv: "K" });
    expect(settings.confirm).toEqual({ timeoutMs: DEFAULT_CONFIRM_TIMEOUT_MS });
    expect(settings.sandbox).toEqual({
      mode: "auto",
      network: false,
      allowHosts: [],
      writable: [],
      hidden: [],
      readable: [],
      unchecked: [],
    });
    expect(settings.web).toEqual({ allowHosts: [] });
    expect(settings.files).toEqual({ protected: [] });
    const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    expect(Object.keys(settings)).toEqual(Object.keys(CONFIG_SCHEMA.shape).map(camel));
    expect([settings.hooks, settings.hooksMayAllow, settings.hooksFail]).toEqual([[], false, "closed"]);
  });

  it("does not share default lists between two settings", () => {
    const a = settingsFromConfig({});
    a.web.allowHosts.push("10.0.0.1");
    expect(settingsFromConfig({}).web.allowHosts).toEqual([]);
  });

  it.each([
    [{ limits: { max_chars: "many" } }, "the config option: limits.max_chars must be a whole number ≥ 0"],
    [
      { sandbox: { mode: "strict" } },
      'the config option: sandbox.mode must be one of "auto", "workspace-write", "read-only", "off", not "strict"',
    ],
    [{ sandbox: { network: "yes" } }, "the config option: sandbox.network must be true or false"],
    [{ llm: { model: 3 } }, "the config option: llm.model must be a string"],
    [{ llm: { think: [] } }, "the config option: llm.think must be a string, number or boolean"],
    [
      { planner: { route: true } },
      "the config option: unknown key planner.route (known in [planner]: default_tool, routing)",
    ],
    [{ web: [] }, "the config option: web must be a table ([web])"],
  ])("refuses a config object %j as a file would be refused", (config, message) => {
    expect(() => settingsFromConfig(config as never, "the config option")).toThrowError(ConfigError);
    expect(() => settingsFromConfig(config as never, "the config option")).toThrowError(message);
  });

  it("refuses a TOML date where a section belongs", () => {
    expect(() => parseConfig("web = 1979-05-27\n", "c.toml")).toThrowError(
      "c.toml: web must be a table ([web])",
    );
  });
});

describe("security keys (security-keys.json)", () => {
  it("each names a setting of the schema", () => {
    expect(checkedKeys(SECURITY_KEYS)).toEqual([...SECURITY_KEYS]);
  });

  it.each([["web.allow_host"], ["wbe.*"], ["sandbox"]])("refuses %j, which would protect nothing", (key) => {
    expect(() => checkedKeys([key])).toThrowError(`security-keys.json: "${key}" names no setting`);
  });

  it("drops them from an untrusted config, keeping the rest", () => {
    const config = parseConfig(
      `[web]\nallow_hosts = ["10.0.0.1"]\ntimeout_ms = 5\n[sandbox]\nmode = "off"\nallow_hosts = ["127.0.0.1:5432"]\n[llm]\nmodel = "m"\nbase_url = "http://x"\n`,
      "c.toml",
    );
    expect(withoutSecurityKeys(config)).toEqual({
      config: { web: { timeout_ms: 5 }, llm: { model: "m" } },
      ignored: ["web.allow_hosts", "sandbox.mode", "sandbox.allow_hosts", "llm.base_url"],
      unprotected: [],
    });
  });

  it.each([
    [["!*"], ["!*"], []],
    [["!.git", "secrets/**"], ["!.git"], ["secrets/**"]],
    [["  !.vscode"], ["  !.vscode"], []],
    [["\\!literal"], [], ["\\!literal"]],
  ])(
    "drops the [files] protected entries of %j that remove protection, keeping the ones that add",
    (given, dropped, kept) => {
      const config = parseConfig(`[files]\nprotected = ${JSON.stringify(given)}\n`, "c.toml");
      expect(withoutSecurityKeys(config)).toEqual({
        config: { files: { protected: kept } },
        ignored: [],
        unprotected: dropped,
      });
    },
  );
});
