/**
 * `node pool-child.mjs`: a host process (built from `dist/`) that starts our test server through the pool
 * and calls its `stderr` tool. The test checks that the server's stderr never reaches this process's stderr.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { McpClientPool } from "../../../dist/mcp-client/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const pool = new McpClientPool();
pool.configure({
  t: {
    type: "stdio",
    command: process.execPath,
    args: [join(here, "test-server.mjs")],
    env: {},
    timeoutMs: 10_000,
    enabled: true,
  },
});
const { tools } = await pool.discover();
const tool = tools.find((t) => t.name === "mcp__t__stderr");
const result = await tool.build({}).run(new AbortController().signal);
await new Promise((r) => setTimeout(r, 100));
process.stdout.write(
  `${JSON.stringify({ result: result.llmContent, log: pool.connection("t").stderr() })}\n`,
);
await pool.close();
