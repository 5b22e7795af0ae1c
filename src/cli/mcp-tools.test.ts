/**
 * Every command sees the project's MCP tools (the real binary, a trusted temporary workspace, real MCP
 * servers): `tools`, `schema`, `policy check` and `agents resolve` list them; `call mcp__server__tool`
 * starts only the server the name needs; a server that crashes at start is reported once, with its exit
 * code and last stderr lines.
 */
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testServerPath } from "../mcp-client/testdata/servers.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";

const crashPath = join(testServerPath, "..", "crash-on-start.mjs");

let ws: string;
let marker: string;
let env: Record<string, string>;

beforeAll(async () => {
  ws = await tempWorkspace({
    ".toolgate/policy.toml": 'default = "allow"\n',
    ".toolgate/agents/echoer.md": "---\ndescription: Echoes\ntools: ['mcp__a__*']\n---\nEcho.\n",
  });
  marker = join(ws, "other-started");
  const servers = {
    a: { command: process.execPath, args: [testServerPath] },
    // Started, it would only leave a mark.
    other: {
      command: process.execPath,
      args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`],
    },
  };
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(ws, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-mcptools-xdg-")) };
  expect((await toolgate(["trust", ws], { env })).code).toBe(0);
});

const run = (args: string[]) => toolgate([...args, "--workspace", ws], { env });

describe("the CLI and the project's MCP tools", () => {
  it("call mcp__a__echo starts only server a", async () => {
    const r = await run(["call", "mcp__a__echo", '{"text":"through the gate"}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("through the gate");
    expect(existsSync(marker)).toBe(false);
  });

  it("tools, schema, policy check and agents resolve list the pool's tools", async () => {
    const tools = await run(["tools", "--json"]);
    expect(tools.code, tools.stderr).toBe(0);
    const names = (JSON.parse(tools.stdout) as { name: string }[]).map((t) => t.name);
    expect(names).toContain("mcp__a__echo");
    expect(names).toContain("read_file");

    const schema = await run(["schema", "--provider", "openai"]);
    expect(schema.code, schema.stderr).toBe(0);
    expect(schema.stdout).toContain('"mcp__a__echo"');

    const check = await run(["policy", "check", "mcp__a__echo", '{"text":"x"}', "--json"]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "allow" });

    const agents = await run(["agents", "resolve", "echoer", "--json"]);
    expect(agents.code, agents.stderr).toBe(0);
    expect(JSON.parse(agents.stdout).tools).toContain("mcp__a__echo");
  }, 120_000);

  it("reports a server that crashes at start once, with its exit code and last stderr lines", async () => {
    const root = await tempWorkspace({
      ".mcp.json": JSON.stringify({ mcpServers: { boom: { command: process.execPath, args: [crashPath] } } }),
      ".toolgate/agents/any.md": "---\ndescription: Any\ntools: ['*']\n---\nGo.\n",
    });
    expect((await toolgate(["trust", root], { env })).code).toBe(0);
    for (const args of [["tools"], ["agents", "resolve", "any"], ["schema", "--provider", "openai"]]) {
      const r = await toolgate([...args, "--workspace", root], { env });
      const lines = r.stderr.split("\n").filter((l) => l.includes("boom"));
      expect(lines, r.stderr).toEqual([
        'toolgate: warning: MCP server boom could not start: it exited with code 3; its last stderr: "starting crash-on-start", "error: the database file is missing", "giving up"; its tools are left out',
      ]);
    }
  }, 120_000);
});
