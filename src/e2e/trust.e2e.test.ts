/**
 * Issue 13 items 3 and 4 end to end: files that come with a repository count only after `toolgate trust`
 * (through the command line, run in-process with each test's own user configuration folder, and the
 * library), and policy lint. Each test has its own user configuration
 * folder (`XDG_CONFIG_HOME`), so nothing is trusted until the test trusts it. Trust bound to content (issue
 * 27): trust-content.e2e.test.ts.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess as toolgate } from "../test-support/cli-in-process.js";
import { createToolgate } from "../toolgate.js";

const LOOSE = `default = "allow"

[[rules]]
tool = "shell"
decision = "allow"
`;
const STRICT = `[[rules]]
tool = "read_file"
decision = "deny"
message = "no reading here"
`;

let xdg: string;
let env: Record<string, string>;
beforeEach(async () => {
  xdg = await mkdtemp(join(tmpdir(), "tg-trust-xdg-"));
  env = { XDG_CONFIG_HOME: xdg };
});

async function check(ws: string, tool: string, args: unknown) {
  const r = await toolgate(["policy", "check", tool, JSON.stringify(args), "--json", "--workspace", ws], {
    env,
  });
  expect(r.code, r.stderr).toBe(0);
  return { ...(JSON.parse(r.stdout) as { decision: string; rule: string | null }), stderr: r.stderr };
}

// Each test runs the binary several times: generous timeouts for a loaded two-core machine.
describe("workspace trust through the binary", { timeout: 180_000 }, () => {
  it("an untrusted loose policy has no effect until toolgate trust; --list and --remove round trip", async () => {
    const ws = await tempWorkspace({ ".toolgate/policy.toml": LOOSE }, "tg-trust-");
    const before = await check(ws, "shell", { command: "touch x" });
    expect(before.decision).toBe("ask");
    const warnings = before.stderr.split("\n").filter((l) => l.includes("is not trusted"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('1 allow rule and default = "allow"');

    const trusted = await toolgate(["trust", ws, "--json"], { env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual([
      { path: ws, since: expect.any(String), files: [".toolgate/policy.toml"] },
    ]);
    const stored = JSON.parse(await readFile(join(xdg, "toolgate", "trusted.json"), "utf8"));
    expect(stored.trusted.map((f: { path: string }) => f.path)).toEqual([ws]);

    const after = await check(ws, "shell", { command: "touch x" });
    expect(after).toMatchObject({ decision: "allow", rule: "policy.toml#1" });
    expect(after.stderr).not.toContain("is not trusted");

    const list = await toolgate(["trust", "--list"], { env });
    expect(list.stdout).toBe(`${ws}\n`);
    const removed = await toolgate(["trust", "--remove", ws], { env });
    expect(removed.stdout).toBe(`no longer trusted: ${ws}\n`);
    expect((await toolgate(["trust", "--list", "--json"], { env })).stdout).toBe("[]\n");
    expect((await check(ws, "shell", { command: "touch x" })).decision).toBe("ask");
    expect(existsSync(join(ws, "x"))).toBe(false);
  });

  it("a trusted parent folder does not cover files of the folders below it that it did not record", async () => {
    const ws = await tempWorkspace({ "proj/.toolgate/policy.toml": LOOSE }, "tg-trust-");
    expect((await toolgate(["trust", ws], { env })).code).toBe(0);
    const below = await check(join(ws, "proj"), "shell", { command: "ls" });
    expect(below.decision).toBe("ask");
    expect(below.stderr).toContain(`policy.toml appeared after ${ws} was trusted: ignoring its 1 allow rule`);
    expect((await toolgate(["trust", join(ws, "proj")], { env })).code).toBe(0);
    expect((await check(join(ws, "proj"), "shell", { command: "ls" })).decision).toBe("allow");
  });

  it("a stricter workspace policy applies at once, untrusted", async () => {
    const ws = await tempWorkspace({ ".toolgate/policy.toml": STRICT, "a.txt": "a\n" }, "tg-trust-");
    const r = await check(ws, "read_file", { path: "a.txt" });
    expect(r).toMatchObject({ decision: "deny", rule: "policy.toml#1" });
    expect(r.stderr).not.toContain("is not trusted");
  });

  it("an untrusted .mcp.json starts nothing: mcp list and agents resolve", async () => {
    const ws = await tempWorkspace({}, "tg-trust-");
    const canary = join(ws, "CANARY");
    const script = `require("fs").writeFileSync(${JSON.stringify(canary)}, "ran")`;
    const { writeFile } = await import("node:fs/promises");
    await writeFile(
      join(ws, ".mcp.json"),
      JSON.stringify({ mcpServers: { evil: { command: process.execPath, args: ["-e", script] } } }),
    );
    const list = await toolgate(["mcp", "list", "--json", "--workspace", ws], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: "evil",
        type: "stdio",
        state: "untrusted",
        tools: 0,
        error: null,
        file: join(ws, ".mcp.json"),
        shadowed: [],
        notes: [],
      },
    ]);
    const { mkdir } = await import("node:fs/promises");
    await mkdir(join(ws, ".toolgate", "agents"), { recursive: true });
    await writeFile(
      join(ws, ".toolgate", "agents", "helper.md"),
      "---\nname: helper\ndescription: h\ntools: ['*']\n---\nHelp.\n",
    );
    const agents = await toolgate(["agents", "resolve", "helper", "--json", "--workspace", ws], { env });
    expect(agents.code, agents.stderr).toBe(0);
    expect(JSON.parse(agents.stdout).tools.some((t: string) => t.startsWith("mcp__"))).toBe(false);
    expect(existsSync(canary)).toBe(false);

    // Trusted, the same server starts (and leaves its canary).
    expect((await toolgate(["trust", ws], { env })).code).toBe(0);
    await toolgate(["mcp", "list", "--json", "--workspace", ws], { env });
    expect(existsSync(canary)).toBe(true);
  });

  it("an untrusted config cannot set security keys; other settings apply", async () => {
    const ws = await tempWorkspace(
      {
        ".toolgate/config.toml":
          '[web]\nallow_hosts = ["127.0.0.1:9"]\ntimeout_ms = 1234\n[shell]\nenv = ["AWS_SECRET"]\n',
      },
      "tg-trust-",
    );
    const r = await toolgate(["tools", "--workspace", ws], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("is not trusted: ignoring web.allow_hosts, shell.env");
  });
});

describe("workspace trust through the library", { timeout: 120_000 }, () => {
  const saved = process.env["XDG_CONFIG_HOME"];
  afterEach(() => {
    if (saved === undefined) delete process.env["XDG_CONFIG_HOME"];
    else process.env["XDG_CONFIG_HOME"] = saved;
  });

  it("trustWorkspace defaults to the trusted list; an explicit value wins", async () => {
    process.env["XDG_CONFIG_HOME"] = xdg;
    const ws = await tempWorkspace(
      { ".toolgate/policy.toml": LOOSE, ".toolgate/config.toml": '[web]\nallow_hosts = ["10.0.0.1"]\n' },
      "tg-trust-",
    );
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m) };
    const call = { name: "shell", args: { command: "touch x" } };
    const decide = async (gate: Awaited<ReturnType<typeof createToolgate>>) => {
      const r = await gate.check(call);
      await gate.close();
      return r.ok ? r.decision.decision : "error";
    };

    const untrusted = await createToolgate({ roots: [ws], logger });
    expect(untrusted.workspaceTrusted).toBe(false);
    expect(untrusted.config.web?.allow_hosts).toBeUndefined();
    expect(await decide(untrusted)).toBe("ask");
    expect(warnings.filter((w) => w.includes("is not trusted"))).toHaveLength(2);

    const explicit = await createToolgate({ roots: [ws], logger, trustWorkspace: true });
    expect(explicit.config.web?.allow_hosts).toEqual(["10.0.0.1"]);
    expect(await decide(explicit)).toBe("allow");

    expect((await toolgate(["trust", ws], { env })).code).toBe(0);
    const byList = await createToolgate({ roots: [ws], logger });
    expect(byList.workspaceTrusted).toBe(true);
    expect(await decide(byList)).toBe("allow");
    expect(await decide(await createToolgate({ roots: [ws], logger, trustWorkspace: false }))).toBe("ask");
  });

  it("a policy named by the caller is trusted", async () => {
    process.env["XDG_CONFIG_HOME"] = xdg;
    const ws = await tempWorkspace({ "mine.toml": LOOSE }, "tg-trust-");
    const gate = await createToolgate({
      roots: [ws],
      policy: join(ws, "mine.toml"),
      logger: { warn: () => {} },
    });
    const r = await gate.check({ name: "shell", args: { command: "ls" } });
    await gate.close();
    expect(r.ok && r.decision.decision).toBe("allow");
  });
});

describe("policy lint through the binary", { timeout: 180_000 }, () => {
  it("a misspelt deny rule warns at load and fails policy validate --strict", async () => {
    const ws = await tempWorkspace(
      {
        "p.toml":
          '[[rules]]\ntool = "Shell"\ndecision = "deny"\n\n[[rules]]\ntool = "read_file"\ndecision = "allow"\n',
      },
      "tg-lint-",
    );
    const plain = await toolgate(["policy", "validate", join(ws, "p.toml"), "--workspace", ws], { env });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(
      'deny rule p.toml#1 (line 1) never fires: no tool is called "Shell" (did you mean "shell"?)',
    );
    const strict = await toolgate(
      ["policy", "validate", join(ws, "p.toml"), "--strict", "--json", "--workspace", ws],
      { env },
    );
    expect(strict.code).toBe(2);
    expect(JSON.parse(strict.stdout)).toMatchObject({
      valid: false,
      warnings: [{ rule: "p.toml#1", tool: "Shell", severity: "deny" }],
    });
    const atLoad = await toolgate(["tools", "--policy", join(ws, "p.toml"), "--workspace", ws], { env });
    expect(atLoad.stderr).toContain('did you mean "shell"?');
  });
});
