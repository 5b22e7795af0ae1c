import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/index.js";
import { loadConfigFile, parseConfig } from "./config.js";

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
