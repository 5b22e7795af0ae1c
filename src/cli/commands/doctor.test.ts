/**
 * `toolgate doctor`: every check on this machine (real bwrap, a local server standing in for the model server),
 * then a PATH without bwrap, which must fail the sandbox check and name the fix, and one with bwrap but without
 * socat, which fails the network-grant check (required when every command gets network).
 *
 * What doctor says runs in-process (toolgateInProcess). The two PATH cases spawn the binary: whether bwrap is
 * found is checked once per process (sandbox/detect caches it), so a PATH of their own needs a process of its own.
 */
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "../../sandbox/index.js";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";

interface Check {
  check: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}

let server: Server;
let url = "";
beforeAll(async () => {
  // Speaks enough of Ollama's API for the reachability check: GET /api/tags.
  server = createServer((req, res) => {
    res.writeHead(req.url === "/api/tags" ? 200 : 404, { "content-type": "application/json" });
    res.end('{"models":[]}');
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const workspace = (extraConfig = "") =>
  tempWorkspace({ ".toolgate/config.toml": `[llm]\nbase_url = "${url}"\n${extraConfig}` });
/** The binary, for a PATH of the test's own (see above). */
const spawnWithPath = async (PATH: string, extraConfig = "") => {
  const root = await workspace(extraConfig);
  return toolgate(["doctor", "--json", "--workspace", root], { cwd: root, env: { PATH } });
};

describe("toolgate doctor", () => {
  it("reports every check, with the sandbox and the model server working here", async () => {
    const root = await workspace();
    const result = await toolgateInProcess(["doctor", "--json", "--workspace", root], { cwd: root });
    const checks = JSON.parse(result.stdout) as Check[];
    expect(checks.map((c) => c.check)).toEqual([
      "node",
      "ripgrep",
      "bash grammar",
      "policy and config",
      "shell sandbox",
      "sandbox view",
      "network grants",
      "hooks",
      "model server",
      "local model runtime",
    ]);
    for (const c of checks) expect(c.ok, `${c.check}: ${c.detail}`).toBe(true);
    expect(checks.find((c) => c.check === "shell sandbox")?.detail).toContain('[sandbox] mode = "auto"');
    expect(checks.find((c) => c.check === "sandbox view")?.detail).toMatch(
      /an empty home folder .* read-only: /,
    );
    expect(checks.find((c) => c.check === "network grants")?.detail).toContain("socat and nsenter found");
    expect(checks.find((c) => c.check === "model server")?.detail).toContain(`ollama at ${url} answered`);
    // node-llama-cpp is a dev dependency here, and these machines have no GPU.
    expect(checks.find((c) => c.check === "local model runtime")?.detail).toContain("computing on the CPU");
    expect(result.code).toBe(0);
  });

  // The two spawned cases are separate processes with nothing shared: they run at once.
  it.concurrent("without bwrap the sandbox check fails, names the fix, and the command exits 1", async ({
    expect,
  }) => {
    const result = await spawnWithPath("/nonexistent-bin");
    const checks = JSON.parse(result.stdout) as Check[];
    const sandbox = checks.find((c) => c.check === "shell sandbox")!;
    expect(sandbox.ok).toBe(false);
    expect(sandbox.detail).toContain("bubblewrap (bwrap) is not installed");
    expect(sandbox.detail).toContain("UNSANDBOXED");
    expect(sandbox.fix).toContain("apt-get install bubblewrap");
    expect(result.code).toBe(1);
  });

  it.concurrent("without socat a network grant cannot be had: the check names the fix, and fails the command when [sandbox] network = true", async ({
    expect,
  }) => {
    const bin = await tempWorkspace({}, "tg-doctor-bin-");
    await symlink(sandboxSupport().bwrap!, join(bin, "bwrap"));
    const result = await spawnWithPath(bin, "[sandbox]\nnetwork = true\n");
    const checks = JSON.parse(result.stdout) as Check[];
    expect(checks.find((c) => c.check === "shell sandbox")?.ok).toBe(true);
    const network = checks.find((c) => c.check === "network grants")!;
    expect(network).toMatchObject({ ok: false, required: true, fix: "apt-get install socat util-linux" });
    expect(network.detail).toContain("socat is not installed");
    expect(network.detail).toContain("never gets the host's network");
    expect(result.code).toBe(1);
  });

  it("prints one line per check, with the fix under a failed one", async () => {
    const root = await tempWorkspace({ ".toolgate/config.toml": '[llm]\nbase_url = "http://127.0.0.1:9"\n' });
    const result = await toolgateInProcess(["doctor", "--workspace", root], { cwd: root });
    expect(result.stdout).toMatch(/^✓ node: Node\.js v\d+/m);
    expect(result.stdout).toMatch(/^! model server: cannot reach ollama at http:\/\/127\.0\.0\.1:9/m);
    expect(result.stdout).toContain("    fix: start it with `ollama serve`");
    expect(result.code).toBe(0);
  });

  it('warns about hooks that cannot run, hooks_fail = "open", hooks waiting for trust and entries not run', async () => {
    const home = await tempWorkspace({}, "tg-doctor-home-");
    const root = await tempWorkspace(
      {
        ".claude/hooks/ok.sh": "#!/bin/sh\nexit 0\n",
        ".gemini/settings.json": JSON.stringify({
          hooks: { BeforeTool: [{ matcher: "", hooks: [{ type: "command", command: "true" }] }] },
        }),
      },
      "tg-doctor-hooks-",
    );
    await chmod(join(root, ".claude/hooks/ok.sh"), 0o755);
    await mkdir(join(home, ".claude"));
    const hook = (command: string) => ({ type: "command", command });
    await writeFile(
      join(home, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                hook("./missing.sh"),
                hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/ok.sh'),
                hook("no-such-program-tg --check"),
                hook("python3 -c 'pass'"),
              ],
            },
          ],
          Stop: [{ hooks: [hook("true")] }],
        },
      }),
    );
    const config = join(home, "config.toml");
    await writeFile(config, `hooks_fail = "open"\n[llm]\nbase_url = "${url}"\n`);
    const result = await toolgateInProcess(["doctor", "--json", "--config", config, "--workspace", root], {
      cwd: root,
      // A trust list of its own: the tests' default one trusts every temp folder.
      env: { HOME: home, XDG_CONFIG_HOME: await tempWorkspace({}, "tg-doctor-xdg-") },
    });
    const hooks = (JSON.parse(result.stdout) as Check[]).find((c) => c.check === "hooks")!;
    expect(hooks).toMatchObject({ ok: false, required: false });
    const warnings = hooks.detail.split("; ");
    expect(warnings.slice(0, 2)).toEqual([
      "4 hook(s) run",
      "1 settings-file entr(ies) toolgate does not run (`toolgate hooks list` says why)",
    ]);
    expect(warnings).toContain(
      'hooks_fail = "open": a hook that crashes, times out or is missing lets the call run, so a broken guard stops guarding unnoticed',
    );
    const broken = warnings.filter((w) => w.includes("cannot run"));
    expect(broken).toEqual([
      "hook `./missing.sh` (~/.claude/settings.json#PreToolUse[0].hooks[0]) cannot run: ./missing.sh is not an executable file (it is ignored)",
      "hook `no-such-program-tg --check` (~/.claude/settings.json#PreToolUse[0].hooks[2]) cannot run: no-such-program-tg is not on PATH (it is ignored)",
    ]);
    expect(warnings).toContain(`1 workspace hook(s) do not run until trusted: ${root}/.gemini/settings.json`);
    expect(hooks.fix).toContain('remove hooks_fail = "open"');
    expect(hooks.fix).toContain("`toolgate trust --show`");
    expect(result.code).toBe(0);
  });
});
