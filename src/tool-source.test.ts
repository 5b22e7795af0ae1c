/**
 * The gate's one tool source, with real MCP servers (our SDK test server) in a real temporary project:
 * generations that never change once made, `.mcp.json` edits arriving as a new generation, a call of
 * `mcp__server__tool` starting only that server, the policy's check applied to pool tools, and workspace
 * trust still keeping `.mcp.json` servers from starting.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testServerPath } from "./mcp-client/testdata/servers.js";
import { tempWorkspace } from "./test-support/cli.js";
import { createToolgate, type Toolgate } from "./toolgate.js";

const server = { command: process.execPath, args: [testServerPath] };
/** A "server" that only leaves a mark: started, it would create `marker`. */
const marking = (marker: string) => ({
  command: process.execPath,
  args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "started")`],
});

let gate: Toolgate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

async function project(servers: Record<string, unknown>, policy = 'default = "allow"\n') {
  const root = await tempWorkspace({
    ".mcp.json": JSON.stringify({ mcpServers: servers }),
    ".toolgate/policy.toml": policy,
  });
  const warnings: string[] = [];
  gate = await createToolgate({
    roots: [root],
    mcp: true,
    trustWorkspace: true,
    logger: { warn: (m) => warnings.push(m) },
  });
  return { root, gate, warnings };
}

describe("the gate's tool source", () => {
  it("adopts .mcp.json edits as a new generation; an older generation stays as it was", async () => {
    const { root, gate } = await project({ a: server });
    const first = await gate.tools();
    expect(first.names).toContain("mcp__a__echo");
    expect(first.names).not.toContain("mcp__b__echo");
    expect(gate.registry).toBe(first.registry);

    await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { a: server, b: server } }));
    const second = await gate.tools();
    expect(second.number).toBeGreaterThan(first.number);
    expect(second.names).toContain("mcp__b__echo");
    expect(gate.registry).toBe(second.registry);
    // The first generation, which a call could still be running against, did not change.
    expect(first.registry.has("mcp__b__echo")).toBe(false);
    expect(first.names).not.toContain("mcp__b__echo");
    // Unchanged: the same generation is kept.
    expect(await gate.tools()).toBe(second);
  });

  it("runs a call against the generation it started with", async () => {
    const { root, gate } = await project({ a: server });
    await gate.tools();
    const running = gate.execute({ name: "mcp__a__echo", args: { text: "first" } });
    // While the call is under way, the tools change.
    await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { a: server, b: server } }));
    const next = gate.tools();
    const result = await running;
    expect(result.ok, result.llmContent).toBe(true);
    expect(result.llmContent).toContain("first");
    expect((await next).names).toContain("mcp__b__echo");
  });

  it("a call of mcp__server__tool starts only that server; a host tool starts none", async () => {
    const root = await tempWorkspace({ "notes.txt": "hi\n" });
    const marker = join(root, "other-started");
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { a: server, other: marking(marker) } }),
    );
    await writeFile(join(root, "policy.toml"), 'default = "allow"\n');
    gate = await createToolgate({
      roots: [root],
      mcp: true,
      trustWorkspace: true,
      policy: join(root, "policy.toml"),
      logger: { warn: () => {} },
    });
    const read = await gate.execute({ name: "read_file", args: { path: "notes.txt" } });
    expect(read.ok).toBe(true);
    const echo = await gate.execute({ name: "mcp__a__echo", args: { text: "only a" } });
    expect(echo.ok, echo.llmContent).toBe(true);
    expect(echo.llmContent).toContain("only a");
    expect(existsSync(marker)).toBe(false);
    expect(gate.registry.has("mcp__a__echo")).toBe(true);
    // Listing every tool starts every server.
    await gate.tools();
    expect(existsSync(marker)).toBe(true);
  });

  it("applies the policy's check to pool tools, as register does: a rule that cannot fit leaves the tool out", async () => {
    const { gate, warnings } = await project(
      { a: server },
      'default = "allow"\n[[rules]]\ntool = "mcp__a__echo"\ndecision = "deny"\nwhen.nope = { equals = "x" }\n',
    );
    const { names } = await gate.tools();
    expect(names).toContain("mcp__a__image");
    expect(names).not.toContain("mcp__a__echo");
    expect(warnings.join("\n")).toContain("tool mcp__a__echo left out: ");
    expect(warnings.join("\n")).toContain('has no argument "nope"');
    const refused = await gate.execute({ name: "mcp__a__echo", args: { text: "x" } });
    expect(refused.error?.type).toBe("tool_not_found");
  });

  it("does not start an untrusted workspace's .mcp.json servers", async () => {
    const root = await tempWorkspace();
    const marker = join(root, "started");
    await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { m: marking(marker) } }));
    const warnings: string[] = [];
    gate = await createToolgate({
      roots: [root],
      mcp: true,
      trustWorkspace: false,
      logger: { warn: (m) => warnings.push(m) },
    });
    const generation = await gate.tools();
    expect(generation.servers).toEqual([expect.objectContaining({ name: "m", state: "untrusted" })]);
    const call = await gate.execute({ name: "mcp__m__anything", args: {} });
    expect(call.error?.type).toBe("tool_not_found");
    expect(existsSync(marker)).toBe(false);
    expect(warnings.filter((w) => w.includes("is not trusted"))).toHaveLength(1);
  });

  it("without mcp, the gate's tools are the host's alone", async () => {
    const root = await tempWorkspace({ ".mcp.json": JSON.stringify({ mcpServers: { a: server } }) });
    gate = await createToolgate({ roots: [root], trustWorkspace: true, logger: { warn: () => {} } });
    const { names } = await gate.tools();
    expect(names.some((n) => n.startsWith("mcp__"))).toBe(false);
    expect(names).toContain("read_file");
  });
});
