/**
 * `toolgate chat --provider local --model PATH` in a real terminal (tmux), on a generated GGUF model run by the
 * real node-llama-cpp: the banner says the model is ready, a task streams the model's answer, Ctrl-D quits.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, removeWorkspace } from "../../loop/testdata/harness.js";
import { tinyModel, writeTinyModel } from "../../test-support/tiny-gguf.js";
import { terminal } from "../../test-support/tmux.js";
import { startServer } from "../../test-support/web-servers.js";

const execFileAsync = promisify(execFile);
const SCRIPT = ["Hello", "▁from", "▁the", "▁tiny", "▁model."];
const main = resolve(import.meta.dirname, "../../../dist/cli/main.js");
const term = terminal(`tg-chat-local-${process.pid}`);
let root: string;
let models: string;

beforeAll(async () => {
  // One llama.cpp thread: its threads spin-wait for each other, which a busy 2-core machine makes very slow.
  root = await makeWorkspace({ ".toolgate/config.toml": "[llm]\nthreads = 1\n" });
  models = await mkdtemp(join(tmpdir(), "tg-local-chat-"));
  await writeTinyModel(join(models, "tiny.gguf"), { script: SCRIPT });
});
afterAll(async () => {
  term.close();
  await removeWorkspace(root);
  await rm(models, { recursive: true, force: true });
});

describe("chat with the local provider", () => {
  it("answers from the model file with no server, and quits on Ctrl-D", async () => {
    const model = join(models, "tiny.gguf");
    term.start(
      "local",
      `node ${JSON.stringify(main)} chat --provider local --model ${JSON.stringify(model)}`,
      root,
    );
    const banner = await term.waitFor(
      "local",
      /model: ready \(context window \d+ tokens, from the embedded model's loaded context\)/,
      120_000,
    );
    expect(banner).toContain(model);
    await term.waitForPrompt("local");
    term.keys("local", "say hello", "Enter");
    await term.waitFor("local", "Hello from the tiny model.", 120_000);
    term.keys("local", "C-d");
    await term.waitFor("local", "bye — transcript saved to", 60_000);
  }, 300_000);
});

describe("chat with no model server", () => {
  it("offers the local default model, pulls it on a yes, and answers with it", async () => {
    // A loopback server stands in for Hugging Face (HF_ENDPOINT), serving the generated model as the default's file.
    const model = tinyModel({ script: SCRIPT });
    const sha = createHash("sha256").update(model).digest("hex");
    const hub = await startServer((_req, res) => {
      res.writeHead(200, { "content-length": String(model.length), "x-linked-etag": `"${sha}"` }).end(model);
    });
    const config = await mkdtemp(join(tmpdir(), "tg-offer-"));
    try {
      // A port just closed refuses connections: no Ollama answers, and no provider is configured.
      const closed = await startServer(() => {});
      await closed.close();
      const env = `env XDG_CONFIG_HOME=${JSON.stringify(config)} HF_ENDPOINT=${hub.origin} OLLAMA_HOST=${closed.hostPort}`;
      // A fresh configuration home trusts nothing: the user trusts the folder (its threads = 1) first.
      await execFileAsync(process.execPath, [main, "trust", root], {
        env: { ...process.env, XDG_CONFIG_HOME: config },
      });
      term.start("offer", `${env} node ${JSON.stringify(main)} chat`, root);
      await term.waitFor(
        "offer",
        /No model server answers\. Download the local model qwen3-1\.7b \(~2\.2 GB, Apache-2\.0\)/,
        120_000,
      );
      term.keys("offer", "y", "Enter");
      await term.waitFor(
        "offer",
        /model: ready \(context window \d+ tokens, from the embedded model's loaded context\)/,
        120_000,
      );
      expect(existsSync(join(config, "toolgate", "state", "models", "Qwen3-1.7B-Q8_0.gguf"))).toBe(true);
      expect(hub.requests.map((r) => r.url)).toEqual([
        "/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf",
      ]);
      await term.waitFor("offer", "›", 30_000);
      term.keys("offer", "say hello", "Enter");
      await term.waitFor("offer", "Hello from the tiny model.", 120_000);
      term.keys("offer", "C-d");
      await term.waitFor("offer", "bye — transcript saved to", 60_000);
    } finally {
      await hub.close();
      await rm(config, { recursive: true, force: true });
    }
  }, 400_000);
});
