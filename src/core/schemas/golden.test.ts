/**
 * Golden files: the shared case file lowered for every provider must equal `testdata/<provider>.golden.json`
 * byte for byte (payload and report). `UPDATE_GOLDEN=1` rewrites them; review the diff: they are the contract.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../registry.js";
import { lowerTools, PROVIDER_NAMES } from "./index.js";
import { caseTools, SCHEMA_CASES } from "./testdata/cases.js";

const here = dirname(fileURLToPath(import.meta.url));

function registryOfCases(): ToolRegistry {
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  for (const tool of caseTools()) registry.register(tool);
  return registry;
}

describe("provider schema golden files", () => {
  it("every case is a valid tool schema (the registry accepts it)", () => {
    expect(registryOfCases().names()).toEqual(SCHEMA_CASES.map((c) => c.name).sort());
  });

  for (const provider of PROVIDER_NAMES) {
    it(`${provider} matches testdata/${provider}.golden.json`, async () => {
      const { tools, report } = lowerTools(registryOfCases().list(), provider);
      const text = `${JSON.stringify({ tools, report }, null, 2)}\n`;
      const file = join(here, "testdata", `${provider}.golden.json`);
      if (process.env.UPDATE_GOLDEN === "1") await writeFile(file, text);
      expect(text).toBe(await readFile(file, "utf8"));
    });
  }
});
