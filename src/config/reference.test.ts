/**
 * `docs/configuration.md` shows the reference generated from the config schema: this test fails when the page
 * is stale. `UPDATE_DOCS=1 npx vitest run src/config/reference.test.ts` rewrites the section.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from "../llm/index.js";
import { configReference } from "./reference.js";
import { CONFIG_SCHEMA } from "./schema.js";

const page = new URL("../../docs/configuration.md", import.meta.url);
const START = "<!-- config-reference:start (generated from src/config/schema.ts) -->";
const END = "<!-- config-reference:end -->";

describe("docs/configuration.md reference", () => {
  it("matches the schema", () => {
    const text = readFileSync(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/configuration.md lacks the config-reference markers").toBeGreaterThan(-1);
    const want = `${START}\n${configReference()}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      writeFileSync(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });

  it("lists every key with a description", () => {
    const reference = configReference();
    const sections = reference.split("### ").slice(1);
    expect(sections.map((t) => t.split("\n")[0])).toEqual(
      Object.keys(CONFIG_SCHEMA.shape).map((name) => `\`[${name}]\``),
    );
    for (const [i, section] of Object.values(CONFIG_SCHEMA.shape).entries()) {
      const keys = sections[i]!.split("\n").filter((l) => l.startsWith("| `"));
      expect(keys.map((l) => l.split(" | ")[0])).toEqual(
        Object.keys(section.unwrap().shape).map((key) => `| \`${key}\``),
      );
    }
    for (const row of reference.split("\n").filter((l) => l.startsWith("| `"))) {
      expect(row.split(" | ")[3]?.trim(), row).not.toBe("");
    }
  });

  it("marks the keys an untrusted workspace cannot set", () => {
    const row = configReference()
      .split("\n")
      .find((l) => l.startsWith("| `allow_hosts` |"));
    expect(row).toContain("*Ignored in an untrusted workspace.*");
  });

  it("states the model client's own defaults as the client has them", () => {
    const reference = configReference();
    const thousands = (n: number) => n.toLocaleString("en").replaceAll(",", " ");
    expect(reference).toContain(`(the client's default: ${thousands(DEFAULT_TIMEOUT_MS)})`);
    expect(reference).toContain(`(the client's default: ${DEFAULT_MAX_RETRIES})`);
  });
});
