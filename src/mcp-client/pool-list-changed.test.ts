/**
 * `toolgate mcp --pool` (the built binary as a real child process, the SDK's client over stdio) sends
 * `notifications/tools/list_changed` when the project's tools get a new generation: an upstream server's own
 * list_changed, and an edit of `.mcp.json`; the client re-lists and sees the new tools.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace } from "../test-support/cli.js";
import { testServerPath } from "./testdata/servers.js";

const server = (prefix: string) => ({
  command: process.execPath,
  args: [testServerPath, "--prefix", prefix],
});

let root: string;
let client: Client;
/** Resolves the next list_changed notification the client receives. */
let nextChange: Promise<void>;
let signalChange: () => void = () => {};
const armChange = () => {
  nextChange = new Promise((resolve) => {
    signalChange = resolve;
  });
};

beforeAll(async () => {
  root = await tempWorkspace(
    {
      ".mcp.json": JSON.stringify({ mcpServers: { t: server("t") } }),
      ".toolgate/policy.toml": 'default = "allow"\n',
    },
    "tg-pool-changed-",
  );
  client = new Client({ name: "list-changed-test", version: "1" });
  armChange();
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => signalChange());
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--pool"],
      cwd: root,
      env: { ...process.env } as Record<string, string>,
      stderr: "pipe",
    }),
  );
}, 120_000);
afterAll(async () => {
  await client?.close();
  await rm(root, { recursive: true, force: true });
});

const names = async () => (await client.listTools()).tools.map((t) => t.name);

describe("toolgate mcp --pool: notifications/tools/list_changed", () => {
  it("follows an upstream server's own list_changed", async () => {
    const before = await names();
    expect(before).toContain("mcp__t__echo");
    armChange();
    const added = await client.callTool({ name: "mcp__t__add_tool", arguments: {} });
    expect(added.isError).toBeFalsy();
    await nextChange;
    const after = await names();
    expect(after.filter((n) => !before.includes(n))).toEqual([expect.stringMatching(/^mcp__t__added_\d+$/)]);
  }, 120_000);

  it("follows an edit of .mcp.json: the new server's tools are listed", async () => {
    expect(await names()).not.toContain("mcp__u__echo");
    armChange();
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { t: server("t"), u: server("u") } }),
    );
    await nextChange;
    expect(await names()).toContain("mcp__u__echo");
  }, 120_000);
});
