import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphRegistry } from "../../agents/testdata/graph-tools.js";
import { testServerPath } from "../../mcp-client/testdata/servers.js";
import { createToolgate, type Toolgate } from "../../toolgate.js";
import { createContext } from "../context.js";
import { splitGlobals } from "../globals.js";
import { runAgents } from "./agents.js";

describe("toolgate agents", () => {
  let root: string;
  let gate: Toolgate;
  /** Runs the command as the CLI does (global flags split off first), with the graph tools as built-ins. */
  const run = async (argv: string[], json = false) => {
    const out: string[] = [];
    const err: string[] = [];
    const { globals, rest } = splitGlobals([...argv, ...(json ? ["--json"] : []), "--workspace", root]);
    const ctx = createContext(
      {
        stdout: (s) => out.push(s),
        stderr: (s) => err.push(s),
        stdin: Readable.from([]),
        isTTY: false,
        env: process.env,
        cwd: root,
      },
      globals,
    );
    const code = await runAgents(rest, ctx, gate);
    return { code, out: out.join(""), err: err.join("") };
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-agentscli-"));
    const dir = join(root, ".toolgate", "agents");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "worker.md"),
      "---\ndescription: Works\ntools: ['entities_*', mcp__t__echo, spawn_agents, ghost]\n---\nWork.\n",
    );
    await writeFile(join(dir, "broken.md"), "no front matter");
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [testServerPath] } } }),
    );
    // The agent's tools are resolved among the gate's: the graph tools and the project's pool.
    gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [...graphRegistry().list()],
      trustWorkspace: true,
      mcp: true,
      logger: { warn: () => {} },
    });
  });
  afterAll(async () => {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  });

  it("lists agents, reporting skipped files on stderr", async () => {
    const r = await run(["list"], true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([
      {
        name: "worker",
        description: "Works",
        tools: ["entities_*", "mcp__t__echo", "spawn_agents", "ghost"],
        max_depth: 2,
        file: join(root, ".toolgate", "agents", "worker.md"),
      },
    ]);
    expect(r.err).toBe(
      `toolgate: warning: ${join(root, ".toolgate", "agents", "broken.md")}: skipped: no YAML front matter: the file must start with a line '---' and close it with '---'\n`,
    );
  });

  it("resolves an agent as {tools, warnings} JSON, at depth 0 and at max depth", async () => {
    const top = await run(["resolve", "worker", "--json"]);
    expect(JSON.parse(top.out)).toEqual({
      tools: [
        "entities_create",
        "entities_delete",
        "entities_get",
        "entities_history",
        "entities_list",
        "entities_merge",
        "entities_search",
        "entities_update",
        "mcp__t__echo",
        "spawn_agents",
      ],
      warnings: ['agent worker: tool "ghost" is not in the pool; skipped'],
    });
    const deep = JSON.parse((await run(["resolve", "worker", "--depth", "2"], true)).out);
    expect(deep.tools).not.toContain("spawn_agents");
    expect(deep.warnings).toContain("agent worker: spawn_agents removed: max depth 2 reached (depth 2)");
  });

  it("prints one tool per line as text, warnings on stderr", async () => {
    const r = await run(["resolve", "worker", "--depth", "1"]);
    expect(r.out.split("\n")[0]).toBe("entities_create");
    expect(r.out).toContain("spawn_agents\n");
    expect(r.err).toBe('toolgate: warning: agent worker: tool "ghost" is not in the pool; skipped\n');
  });

  it.each([
    [["resolve", "nobody"], 'no agent named "nobody" in .toolgate/agents/'],
    [["resolve", "broken"], /^agent broken cannot be used: .*broken\.md: no YAML front matter/],
    [["resolve", "worker", "--depth=-1"], '--depth must be a whole number ≥ 0, not "-1"'],
    [["resolve", "worker", "--depth", "two"], '--depth must be a whole number ≥ 0, not "two"'],
    [["resolve"], "usage: toolgate agents list | toolgate agents resolve AGENT [--depth N]"],
    [["frobnicate"], "usage: toolgate agents list | toolgate agents resolve AGENT [--depth N]"],
    [["list", "--all"], 'unknown option --all for "toolgate agents list" (see toolgate agents --help)'],
    [["resolve", "worker", "--depht", "1"], 'unknown option --depht for "toolgate agents resolve"'],
    [["resolve", "worker", "--depth"], 'option --depth needs a value for "toolgate agents resolve"'],
  ])("refuses %j", async (argv, message) => {
    await expect(run(argv as string[])).rejects.toThrow(message);
  });
});
