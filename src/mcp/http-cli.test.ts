/**
 * `toolgate mcp --http HOST:PORT`, the built binary as a real child process: it prints where it listens,
 * the SDK's streamable-HTTP client lists and calls its tools with the token from TOOLGATE_MCP_TOKEN, and a
 * non-loopback address without `--allow-remote` is a usage error. Listings follow the policy: a tool it denies
 * is not advertised as read-only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace, toolgate } from "../test-support/cli.js";

const TOKEN = "cli-test-token-0123456789";
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) c.kill("SIGTERM");
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Starts the server and waits for the line naming its URL. */
function serve(
  root: string,
  env: Record<string, string>,
  flags: string[] = [],
): Promise<{ url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "127.0.0.1:0", ...flags], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ url: m[1]!, stderr: () => stderr });
    });
    child.on("close", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

describe("toolgate mcp --http", () => {
  it("serves the gate's tools to the SDK's streamable-HTTP client with the token from the environment", async () => {
    const root = await tempWorkspace(
      {
        "a.txt": "alpha\n",
        ".toolgate/policy.toml":
          'default = "ask"\n[[rules]]\ntool = "read_file"\ndecision = "allow"\n[[rules]]\ntool = "grep"\ndecision = "deny"\n',
      },
      "tg-mcp-http-",
    );
    dirs.push(root);
    const { url, stderr } = await serve(root, { TOOLGATE_MCP_TOKEN: TOKEN });
    expect(stderr()).toContain("clients must send the token from TOOLGATE_MCP_TOKEN");
    expect(stderr()).not.toContain(TOKEN);
    const refused = await fetch(url, { method: "POST", body: "{}" });
    expect(refused.status).toBe(401);
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("read_file");
      // Listings are no looser than the policy: grep searches (read-only by kind) but the policy denies it.
      const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
      expect(byName.read_file).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(byName.grep).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      const result = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
      expect(JSON.stringify(result.content)).toContain("alpha");
    } finally {
      await client.close();
    }
  }, 120_000);

  it("prints a generated token when none is set", async () => {
    const root = await tempWorkspace({}, "tg-mcp-http-gen-");
    dirs.push(root);
    const { stderr } = await serve(root, { TOOLGATE_MCP_TOKEN: "" });
    expect(stderr()).toMatch(/token \(send as Authorization: Bearer <token>\): [A-Za-z0-9_-]{43}\n/);
  }, 120_000);

  it("gives each client token of TOOLGATE_MCP_TOKEN its own share of the sessions (--max-sessions)", async () => {
    const root = await tempWorkspace({}, "tg-mcp-http-tokens-");
    dirs.push(root);
    const other = "cli-test-other-0123456789";
    const { url, stderr } = await serve(root, { TOOLGATE_MCP_TOKEN: `${TOKEN}, ${other}` }, [
      "--max-sessions",
      "2",
      "--session-idle-ms",
      "600000",
    ]);
    expect(stderr()).toContain("clients must send one of the 2 tokens from TOOLGATE_MCP_TOKEN");
    const open = async (token: string) => {
      const client = new Client({ name: "cli-test", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const first = await open(TOKEN);
    // The first token's one place is taken (its client is still connected); the other token has its own.
    await expect(open(TOKEN)).rejects.toThrow(/too many sessions for this client token \(at most 1\)/);
    const second = await open(other);
    expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    await first.close();
    await second.close();
  }, 120_000);

  it("refuses bad session limits, and limits without --http", async () => {
    const bad = await toolgate(["mcp", "--http", "127.0.0.1:0", "--session-idle-ms", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--session-idle-ms must be a whole number ≥ 1, not "soon"');
    const zero = await toolgate(["mcp", "--http", "127.0.0.1:0", "--max-sessions", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--max-sessions must be a whole number ≥ 1, not "0"');
    const stdio = await toolgate(["mcp", "--max-sessions-per-token", "3"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("the session limits go with --http");
  }, 120_000);

  it("refuses a non-loopback address without --allow-remote, and a malformed one", async () => {
    const remote = await toolgate(["mcp", "--http", "0.0.0.0:0"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("0.0.0.0 is not a loopback address: add --allow-remote");
    const bad = await toolgate(["mcp", "--http", "nonsense"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--http wants HOST:PORT");
  }, 120_000);
});
