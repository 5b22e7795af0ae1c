// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write MCP files' ${VAR} references, not templates
/**
 * Issue 27 items 4 and 5 and issue 30 item 1 through the command line (in-process, the dispatcher the binary
 * runs): trust is bound to the content of each file it covers (a file planted or changed after trust is
 * untrusted; `toolgate trust` shows what changed, host variables included, and trusts exactly that),
 * untrusted config never loosens (`!` patterns, sandbox grants), a list of the first format trusts nothing
 * until re-trusted, and `init` trusts what it wrote. Each test has its own user configuration folder
 * (`XDG_CONFIG_HOME`): nothing is trusted until it trusts it.
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess as toolgate } from "../test-support/cli-in-process.js";

let env: Record<string, string>;
beforeEach(async () => {
  env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-content-xdg-")) };
});

const LOOSE = 'default = "allow"\n\n[[rules]]\ntool = "shell"\ndecision = "allow"\n';

/** A stdio "server" that only leaves a canary file when it is started. */
function canaryServer(canary: string) {
  return {
    command: process.execPath,
    args: ["-e", `require("fs").writeFileSync(${JSON.stringify(canary)}, "ran")`],
  };
}

async function run(args: string[], ws: string) {
  return toolgate([...args, "--workspace", ws], { env });
}

async function decision(ws: string, tool: string, args: unknown) {
  const r = await run(["policy", "check", tool, JSON.stringify(args), "--json"], ws);
  expect(r.code, r.stderr).toBe(0);
  return { decision: (JSON.parse(r.stdout) as { decision: string }).decision, stderr: r.stderr };
}

describe("trust bound to content, through the binary", { timeout: 300_000 }, () => {
  it("a config planted inside a trusted workspace after trust is untrusted: its policy only tightens, its server does not start", async () => {
    const ws = await tempWorkspace({ ".toolgate/policy.toml": LOOSE }, "tg-content-");
    expect((await toolgate(["trust", ws], { env })).code).toBe(0);
    expect((await decision(ws, "shell", { command: "touch x" })).decision).toBe("allow");

    // A command run in the trusted workspace writes a package with its own toolgate files.
    const pkg = join(ws, "pkg");
    const canary = join(ws, "CANARY");
    await mkdir(join(pkg, ".toolgate"), { recursive: true });
    await writeFile(join(pkg, ".toolgate", "policy.toml"), LOOSE);
    await writeFile(
      join(pkg, ".mcp.json"),
      JSON.stringify({ mcpServers: { planted: canaryServer(canary) } }),
    );

    const check = await decision(pkg, "shell", { command: "touch x" });
    expect(check.decision).toBe("ask");
    expect(check.stderr).toContain(
      `${join(pkg, ".toolgate", "policy.toml")} appeared after ${ws} was trusted`,
    );
    const list = await run(["mcp", "list", "--json"], pkg);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ name: "planted", state: "untrusted" }),
    ]);
    expect(list.stderr).toContain(
      `${join(pkg, ".mcp.json")} appeared after ${ws} was trusted: did not start planted`,
    );
    const tools = await run(["tools", "--json"], pkg);
    expect(tools.code, tools.stderr).toBe(0);
    expect(existsSync(canary)).toBe(false);
  });

  it("a .mcp.json changed after trust starts nothing; trust --show and trust show the change; re-trust starts it", async () => {
    const first = join(await mkdtemp(join(tmpdir(), "tg-canary-")), "first");
    const second = join(await mkdtemp(join(tmpdir(), "tg-canary-")), "second");
    const ws = await tempWorkspace(
      { ".mcp.json": JSON.stringify({ mcpServers: { first: canaryServer(first) } }) },
      "tg-content-",
    );
    expect((await toolgate(["trust", ws], { env })).code).toBe(0);

    // A `git pull` adds a server.
    await writeFile(
      join(ws, ".mcp.json"),
      JSON.stringify({ mcpServers: { first: canaryServer(first), second: canaryServer(second) } }),
    );
    const list = await run(["mcp", "list", "--json"], ws);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((s: { name: string; state: string }) => [s.name, s.state])).toEqual([
      ["first", "untrusted"],
      ["second", "untrusted"],
    ]);
    expect(list.stderr).toContain(
      `${join(ws, ".mcp.json")} changed since ${ws} was trusted: did not start first, second`,
    );
    expect(existsSync(first) || existsSync(second)).toBe(false);

    const show = await toolgate(["trust", "--show", ws], { env });
    expect(show.code, show.stderr).toBe(0);
    const added = `    - added: server second: runs ${JSON.stringify(process.execPath)} "-e"`;
    expect(show.stdout).toContain(`${ws}: trusting it would change this (\`toolgate trust\` does it):\n`);
    expect(show.stdout).toContain(`  .mcp.json: changed since it was trusted\n${added}`);
    expect(show.stdout).not.toContain("server first");
    // --show recorded nothing.
    await run(["mcp", "list", "--json"], ws);
    expect(existsSync(second)).toBe(false);

    const trusted = await toolgate(["trust", ws], { env });
    expect(trusted.stdout).toContain(`trusted: ${ws}\n  .mcp.json: changed since it was trusted\n${added}`);
    await run(["mcp", "list", "--json"], ws);
    expect(existsSync(second)).toBe(true);
    expect(existsSync(first)).toBe(true);
  });

  it("trust shows the host variables a server's headers, args and env carry", async () => {
    const ws = await tempWorkspace(
      {
        ".mcp.json": JSON.stringify({
          mcpServers: {
            github: {
              type: "http",
              url: "https://api.example/mcp",
              headers: { Authorization: "Bearer ${GITHUB_TOKEN}" },
            },
            tool: {
              command: "npx",
              args: ["-y", "t", "--token=${env:T_TOKEN}"],
              env: { AWS: "${AWS_SECRET_ACCESS_KEY}" },
            },
          },
        }),
      },
      "tg-content-",
    );
    const r = await toolgate(["trust", "--show", ws], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "    - server github: connects to https://api.example/mcp; passes host variables: headers.Authorization ← ${GITHUB_TOKEN}\n",
    );
    expect(r.stdout).toContain(
      '    - server tool: runs "npx" "-y" "t" "--token=${env:T_TOKEN}"; passes host variables: args[2] ← ${T_TOKEN}; env.AWS ← ${AWS_SECRET_ACCESS_KEY}\n',
    );
  });

  it("an untrusted config's `!` patterns are ignored: write_file cannot write .git/hooks/pre-commit", async () => {
    const ws = await tempWorkspace(
      { ".toolgate/config.toml": '[files]\nprotected = ["!*", "!.git"]\n', ".git/hooks/README": "hooks\n" },
      "tg-content-",
    );
    const writeHook = () =>
      run(
        [
          "call",
          "write_file",
          JSON.stringify({ path: ".git/hooks/pre-commit", content: "#!/bin/sh\nid\n" }),
          "--yes",
          "--json",
        ],
        ws,
      );
    const refused = { ok: false, error: { message: expect.stringContaining("protected") } };
    const r = await writeHook();
    expect(r.stderr).toContain(
      `${join(ws, ".toolgate", "config.toml")} is not trusted: ignoring [files] protected "!*", [files] protected "!.git"`,
    );
    expect(JSON.parse(r.stdout)).toMatchObject(refused);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
    // Trusted, a `!` entry still only makes exceptions to the config's own entries: the built-in list stays.
    const trusted = await toolgate(["trust", ws], { env });
    expect(trusted.stdout).toContain('    - exempts from its own protected paths: "!.git"\n');
    const again = await writeHook();
    expect(again.stderr).not.toContain("not trusted");
    expect(JSON.parse(again.stdout)).toMatchObject(refused);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("an untrusted rule's sandbox grant is dropped with the warning: the approved command still runs sandboxed", async () => {
    const outside = await mkdtemp(join(tmpdir(), "tg-outside-"));
    const escaped = join(outside, "escaped");
    const ws = await tempWorkspace(
      { ".toolgate/policy.toml": '[[rules]]\ntool = "shell"\ndecision = "ask"\nsandbox = "off"\n' },
      "tg-content-",
    );
    const call = ["call", "shell", JSON.stringify({ command: `touch ${escaped}` }), "--yes", "--json"];
    const untrusted = await run(call, ws);
    expect(untrusted.stderr).toContain(
      `${join(ws, ".toolgate", "policy.toml")} is not trusted: ignoring the sandbox grant of policy.toml#1 (`,
    );
    expect(existsSync(escaped)).toBe(false);
    // Trusted, the same grant takes the command out of the sandbox: the grant was real.
    expect((await toolgate(["trust", ws], { env })).code).toBe(0);
    const trusted = await run(call, ws);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(existsSync(escaped)).toBe(true);
  });

  it("a list of the first format (no digests) trusts nothing, says why, and toolgate trust records the files", async () => {
    const ws = await tempWorkspace({ ".toolgate/policy.toml": LOOSE }, "tg-content-");
    await mkdir(join(env.XDG_CONFIG_HOME!, "toolgate"), { recursive: true });
    const store = join(env.XDG_CONFIG_HOME!, "toolgate", "trusted.json");
    await writeFile(
      store,
      JSON.stringify({ version: 1, trusted: [{ path: ws, since: "2024-01-01T00:00:00Z" }] }),
    );
    const before = await decision(ws, "shell", { command: "touch x" });
    expect(before.decision).toBe("ask");
    expect(before.stderr).toContain(
      `is in ${ws}, trusted by an older toolgate that recorded no digest of its files`,
    );
    const list = await toolgate(["trust", "--list"], { env });
    expect(list.stdout).toBe(
      `${ws}  (recorded by an older toolgate without digests: trusts none of its files until \`toolgate trust ${ws}\`)\n`,
    );
    const trusted = await toolgate(["trust", ws], { env });
    expect(trusted.stdout).toContain(
      ".toolgate/policy.toml: not trusted before (trusted by an older toolgate without digests)",
    );
    expect((await decision(ws, "shell", { command: "touch x" })).decision).toBe("allow");
    expect(JSON.parse(await readFile(store, "utf8")).version).toBe(2);
  });
});

describe("init trusts what it wrote", { timeout: 300_000 }, () => {
  it("says so; git status is then allowed; an edit needs toolgate trust again; --no-trust trusts nothing", async () => {
    const ws = await tempWorkspace(
      { ".mcp.json": JSON.stringify({ mcpServers: { x: { command: "x" } } }) },
      "tg-init-",
    );
    const init = await run(["init"], ws);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      `trusted     .toolgate/policy.toml and .toolgate/config.toml — as written now (recorded in ${join(env.XDG_CONFIG_HOME!, "toolgate", "trusted.json")}; --no-trust skips this)\n`,
    );
    const status = await decision(ws, "shell", { command: "git status" });
    expect(status.decision).toBe("allow");
    expect(status.stderr).not.toContain("trusted");
    // Only what init wrote: the .mcp.json that was there is still untrusted.
    const list = await run(["mcp", "list", "--json"], ws);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: "x", state: "untrusted" })]);

    // The user edits the policy: the edit tightens at once, loosens only after toolgate trust.
    await appendFile(
      join(ws, ".toolgate", "policy.toml"),
      '\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    );
    const edited = await decision(ws, "shell", { command: "touch y" });
    expect(edited.decision).toBe("ask");
    expect(edited.stderr).toContain(`policy.toml changed since ${ws} was trusted: ignoring its`);
    const again = await toolgate(["trust", ws], { env });
    expect(again.stdout).toContain(
      "  .toolgate/policy.toml: changed since it was trusted\n    - added: allow rule #",
    );
    expect((await decision(ws, "shell", { command: "touch y" })).decision).toBe("allow");

    const other = await tempWorkspace({}, "tg-init-");
    const untrusted = await run(["init", "--no-trust", "--json"], other);
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(JSON.parse(untrusted.stdout).trusted).toEqual([]);
    const ask = await decision(other, "shell", { command: "git status" });
    expect(ask.decision).toBe("ask");
    expect(ask.stderr).toContain("policy.toml is not trusted: ignoring its");
  });
});
