/**
 * The adapters are published subpaths (`toolgate/ai-sdk`, `toolgate/langchain`, `toolgate/openai-agents`):
 * package.json maps each to its file, and each exports exactly the intended runtime names.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SUBPATHS: Record<string, { file: string; names: string[] }> = {
  "./ai-sdk": { file: "ai-sdk", names: ["ToolgateCallError", "aiSdkTools"] },
  "./langchain": { file: "langchain", names: ["ToolgateCallError", "langchainTools"] },
  "./openai-agents": {
    file: "openai-agents",
    names: ["REFUSED_IN_RUN", "ToolgateCallError", "openaiAgentsTools"],
  },
};

describe("adapter subpaths", () => {
  it("are published in package.json, each an optional peer's adapter", async () => {
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
    for (const [subpath, { file }] of Object.entries(SUBPATHS)) {
      expect(pkg.exports[subpath]).toEqual({
        types: `./dist/adapters/${file}.d.ts`,
        default: `./dist/adapters/${file}.js`,
      });
    }
    for (const peer of ["ai", "@langchain/core", "@openai/agents"]) {
      expect(pkg.peerDependencies[peer]).toBeTypeOf("string");
      expect(pkg.peerDependenciesMeta[peer]).toEqual({ optional: true });
      expect(pkg.devDependencies[peer]).toBeTypeOf("string");
    }
  });

  for (const [subpath, { file, names }] of Object.entries(SUBPATHS)) {
    it(`toolgate${subpath.slice(1)} exports exactly the intended runtime names`, async () => {
      const api = await import(`./${file}.js`);
      expect(Object.keys(api).sort()).toEqual(names);
    });
  }
});
