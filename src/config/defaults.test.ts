import { describe, expect, it } from "vitest";
import { settingsFromConfig } from "./config.js";
import { CONFIG_DEFAULTS, camelKeys, defaultSettings } from "./defaults.js";
import { CONFIG_SCHEMA } from "./schema.js";

describe("defaultSettings", () => {
  it("with no config gives the defaults a gate uses without loading the schema", () => {
    expect(defaultSettings()).toEqual(settingsFromConfig({}));
    expect(Object.keys(CONFIG_DEFAULTS)).toEqual(Object.keys(CONFIG_SCHEMA.shape));
    const a = defaultSettings();
    a.sandbox.writable.push("/tmp");
    expect(defaultSettings().sandbox.writable).toEqual([]);
  });
});

describe("camelKeys", () => {
  it("renames keys at every depth and keeps arrays and values as they are", () => {
    expect(camelKeys({ max_chars: 1, web: { allow_hosts: ["a_b"] }, x: [{ a_b: 1 }] })).toEqual({
      maxChars: 1,
      web: { allowHosts: ["a_b"] },
      x: [{ a_b: 1 }],
    });
    expect(camelKeys("a_b")).toBe("a_b");
  });
});
