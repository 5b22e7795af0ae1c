/**
 * Every built-in tool, the optional ones included (Jira and Confluence appear only when configured), made
 * over a fresh temporary folder: for tests that look at all of them (their schemas, the validators
 * generated from those). Close it after use.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultSettings } from "../config/defaults.js";
import type { Tool } from "../core/index.js";
import { createInProcessStateBackend } from "../state/index.js";
import { createBuiltinTools } from "../tools/index.js";

export interface AllBuiltinTools {
  tools: Tool[];
  close(): Promise<void>;
}

export async function allBuiltinTools(): Promise<AllBuiltinTools> {
  const dir = await mkdtemp(join(tmpdir(), "tg-all-builtins-"));
  const builtins = await createBuiltinTools({
    roots: [dir],
    settings: defaultSettings(),
    logger: { warn: () => undefined },
    state: createInProcessStateBackend(),
    env: {
      JIRA_BASE_URL: "https://jira.example.com",
      JIRA_API_TOKEN: "t",
      CONFLUENCE_BASE_URL: "https://wiki.example.com",
      CONFLUENCE_API_TOKEN: "t",
    },
  });
  return {
    tools: builtins.tools as Tool[],
    close: async () => {
      await builtins.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
