/**
 * Configurations of the real MCP servers the tests start: our own SDK test server (`test-server.mjs`),
 * and the npm servers `server-everything`, `server-filesystem` and `server-memory`, all over stdio.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioServerConfig } from "../config.js";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, "..", "..", "..");
export const testServerPath = join(here, "test-server.mjs");
export const everythingPath = join(
  repoRoot,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
export const filesystemPath = join(
  repoRoot,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);
export const memoryPath = join(repoRoot, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

/** Our test server over stdio; `args` adds flags (`--tools 50 --page-size 10`). */
export function testServer(args: string[] = [], extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
  return {
    type: "stdio",
    command: process.execPath,
    args: [testServerPath, ...args],
    env: {},
    timeoutMs: 10_000,
    enabled: true,
    ...extra,
  };
}

export function everythingServer(): StdioServerConfig {
  return {
    type: "stdio",
    command: process.execPath,
    args: [everythingPath, "stdio"],
    env: {},
    timeoutMs: 20_000,
    enabled: true,
  };
}

export function filesystemServer(dir: string): StdioServerConfig {
  return {
    type: "stdio",
    command: process.execPath,
    args: [filesystemPath, dir],
    env: {},
    timeoutMs: 20_000,
    enabled: true,
  };
}
