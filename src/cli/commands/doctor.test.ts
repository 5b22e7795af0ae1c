/**
 * `toolgate doctor` through the real binary: every check on this machine (real bwrap, a local server standing in
 * for the model server), then a PATH without bwrap, which must fail the sandbox check and name the fix, and one
 * with bwrap but without socat, which fails the network-grant check (required when every command gets network).
 */
import { symlink } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "../../sandbox/index.js";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";

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

const run = async (env: Record<string, string>, extraConfig = "") => {
  const root = await tempWorkspace({ ".toolgate/config.toml": `[llm]\nbase_url = "${url}"\n${extraConfig}` });
  return toolgate(["doctor", "--json", "--workspace", root], { cwd: root, env });
};

describe("toolgate doctor", () => {
  it("reports every check, with the sandbox and the model server working here", async () => {
    const result = await run({});
    const checks = JSON.parse(result.stdout) as Check[];
    expect(checks.map((c) => c.check)).toEqual([
      "node",
      "ripgrep",
      "bash grammar",
      "policy and config",
      "shell sandbox",
      "sandbox view",
      "network grants",
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

  it("without bwrap the sandbox check fails, names the fix, and the command exits 1", async () => {
    const result = await run({ PATH: "/nonexistent-bin" });
    const checks = JSON.parse(result.stdout) as Check[];
    const sandbox = checks.find((c) => c.check === "shell sandbox")!;
    expect(sandbox.ok).toBe(false);
    expect(sandbox.detail).toContain("bubblewrap (bwrap) is not installed");
    expect(sandbox.detail).toContain("UNSANDBOXED");
    expect(sandbox.fix).toContain("apt-get install bubblewrap");
    expect(result.code).toBe(1);
  });

  it("without socat a network grant cannot be had: the check names the fix, and fails the command when [sandbox] network = true", async () => {
    const bin = await tempWorkspace({}, "tg-doctor-bin-");
    await symlink(sandboxSupport().bwrap!, join(bin, "bwrap"));
    const result = await run({ PATH: bin }, "[sandbox]\nnetwork = true\n");
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
    const result = await toolgate(["doctor", "--workspace", root], { cwd: root });
    expect(result.stdout).toMatch(/^✓ node: Node\.js v\d+/m);
    expect(result.stdout).toMatch(/^! model server: cannot reach ollama at http:\/\/127\.0\.0\.1:9/m);
    expect(result.stdout).toContain("    fix: start it with `ollama serve`");
    expect(result.code).toBe(0);
  });
});
