/**
 * `docs/configuration.md` shows the reference generated from the config schema: this test fails when the page
 * is stale. `UPDATE_DOCS=1 npx vitest run src/config/reference.test.ts` rewrites the section.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from "../llm/index.js";
import { HOOK_ENTRY, HOOK_KEYS } from "./hooks-schema.js";
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
    const named = Object.entries(CONFIG_SCHEMA.shape).filter(([name]) => !HOOK_KEYS.includes(name));
    expect(sections.map((t) => t.split("\n")[0])).toEqual([
      ...named.map(([name]) => `\`[${name}]\``),
      "Top-level keys",
      "`[[hooks]]`",
    ]);
    const rows = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.startsWith("| `"))
        .map((l) => l.split(" | ")[0]);
    for (const [i, [, section]] of named.entries()) {
      const shape = (section as unknown as { unwrap(): { shape: object } }).unwrap().shape;
      expect(rows(sections[i]!)).toEqual(Object.keys(shape).map((key) => `| \`${key}\``));
    }
    expect(rows(sections[named.length]!)).toEqual(["| `hooks_may_allow`", "| `hooks_fail`"]);
    expect(rows(sections[named.length + 1]!)).toEqual(
      Object.keys(HOOK_ENTRY.shape).map((key) => `| \`${key}\``),
    );
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
