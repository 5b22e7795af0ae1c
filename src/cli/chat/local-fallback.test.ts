/**
 * The local-model path ends honestly (issue 30), through the real binary with no model server (a port just
 * closed) and no model pulled: when the download a person (or `--yes`) chose fails, `chat` and `run` say what
 * else works — a Hugging Face mirror, a .gguf URL, a model server — and exit 2 instead of opening a session
 * that cannot run; without a terminal, `chat` names the local option; the help lists `local`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";
import { startServer, type TestServer } from "../../test-support/web-servers.js";

let hub: TestServer;
let config: string;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  // A Hugging Face stand-in that cannot serve the model.
  hub = await startServer((_req, res) => res.writeHead(503).end("down for maintenance"));
  const closed = await startServer(() => {});
  await closed.close();
  // A user configuration of its own: no model pulled, no workspace trusted.
  config = await mkdtemp(join(tmpdir(), "tg-local-fallback-"));
  root = await tempWorkspace({ "README.md": "# a\n" }, "tg-local-fallback-ws-");
  env = { XDG_CONFIG_HOME: config, OLLAMA_HOST: closed.hostPort, HF_ENDPOINT: hub.origin };
});
afterAll(async () => {
  await hub.close();
  await rm(config, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

const WHAT_ELSE = [
  "toolgate: the local model could not be used: the model could not be downloaded (see above). Instead:",
  "  - a Hugging Face mirror you can reach: HF_ENDPOINT=https://MIRROR toolgate chat",
  "  - a .gguf file from anywhere you can reach: toolgate models pull URL --sha256 HEX, then toolgate chat --provider local --model NAME (or --model ./file.gguf for a file you already have)",
  "  - a model server you have: [llm] provider, base_url and model in .toolgate/config.toml (or --provider, --base-url, --model); docs/chat.md lists them",
].join("\n");

describe("when the local model cannot be downloaded", () => {
  it("chat --yes says what else works and exits 2, opening no session", async () => {
    const r = await toolgate(["chat", "--yes"], { cwd: root, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pulling qwen3-1.7b from 127.0.0.1:");
    expect(r.stderr).toContain(`${WHAT_ELSE}\n`);
    expect(r.stdout).not.toContain("toolgate chat —");
    expect(hub.requests.map((q) => q.url)).toContain(
      "/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf",
    );
  });

  it("run --yes says the same and exits 2", async () => {
    const r = await toolgate(["run", "hello", "--yes"], { cwd: root, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${WHAT_ELSE}\n`);
    expect(r.stdout).toBe("");
  });
});

describe("with no model server and nobody to ask", () => {
  it("chat names the local model as an option, and exits 2", async () => {
    const r = await toolgate(["chat"], { cwd: root, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("toolgate: cannot reach Ollama at http://");
    expect(r.stderr).toContain(
      "  or, with no model server at all, run a small model in-process: toolgate models pull, then toolgate chat --provider local (chat --yes and run --yes pull it without asking) — docs/local-model.md\n",
    );
  });
});

describe("the help of chat and run", () => {
  it.each(["chat", "run"])("%s --help lists the local provider", async (command) => {
    const r = await toolgate([command, "--help"], { cwd: root, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("[--provider ollama|openai|local]");
    expect(r.stdout).toContain("ollama, openai, or local (a GGUF model run in-process: docs/local-model.md)");
  });
});
