/**
 * `toolgate chat --provider local --model PATH` in a real terminal (tmux), on a generated GGUF model run by the
 * real node-llama-cpp: the banner says the model is ready, a task streams the model's answer, Ctrl-D quits.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace, removeWorkspace } from "../../loop/testdata/harness.js";
import { writeTinyModel } from "../../test-support/tiny-gguf.js";
import { terminal } from "../../test-support/tmux.js";

const main = resolve(import.meta.dirname, "../../../dist/cli/main.js");
const term = terminal(`tg-chat-local-${process.pid}`);
let root: string;
let models: string;

beforeAll(async () => {
  root = await makeWorkspace({});
  models = await mkdtemp(join(tmpdir(), "tg-local-chat-"));
  await writeTinyModel(join(models, "tiny.gguf"), { script: ["Hello", "▁from", "▁the", "▁tiny", "▁model."] });
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
    const banner = await term.waitFor("local", /model: ready \(context window \d+ tokens\)/, 120_000);
    expect(banner).toContain(model);
    await term.waitForPrompt("local");
    term.keys("local", "say hello", "Enter");
    await term.waitFor("local", "Hello from the tiny model.", 120_000);
    term.keys("local", "C-d");
    await term.waitFor("local", "bye — transcript saved to", 60_000);
  }, 300_000);
});
