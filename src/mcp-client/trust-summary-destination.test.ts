// RED TEAM (issue 27, redteam-trust): the trust review must name the address the loader connects to.
import { describe, expect, it } from "vitest";
import { parseMcpConfig } from "./config.js";
import { DEFAULT_HOST_FILE, MCP_HOST_FILES } from "./hosts.js";
import CASES from "./testdata/summary-destination.json" with { type: "json" };
import { summarizeMcpFile } from "./trust-summary.js";

describe("RED TEAM: what toolgate trust says a remote server connects to", () => {
  for (const { file, entry } of CASES.cases) {
    it(`${file} ${JSON.stringify(entry)}`, () => {
      const text = JSON.stringify({ mcpServers: { s: entry } });
      const host = MCP_HOST_FILES.find((h) => h.path === file) ?? DEFAULT_HOST_FILE;
      const loaded = parseMcpConfig(text, file, { host, env: {} }).servers["s"];
      expect(loaded && "url" in loaded, "the loader connects somewhere").toBe(true);
      const url = (loaded as { url: string }).url;
      expect(summarizeMcpFile(text, file).servers["s"]!.what).toBe(`connects to ${url}`);
    });
  }
});
