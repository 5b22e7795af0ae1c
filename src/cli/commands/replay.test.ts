/**
 * `toolgate replay` through the binary: a transcript is mostly a model's words, so what it prints carries no
 * escape sequence, carriage return or bidi control from them (emoji stay), and `--json` parses back to the
 * very records with every invisible character escaped.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const HOSTILE = "done\x1b[2J\x1b]0;owned\x07\r  sandbox: off\u202e ok 👨\u200d👩\u200d👧";

describe("toolgate replay", () => {
  it("prints a model's text with nothing that drives the terminal, and --json losslessly escaped", async () => {
    const root = await tempWorkspace({}, "tg-replay-");
    dirs.push(root);
    const records = [
      {
        time: "2026-01-01T00:00:00Z",
        type: "session",
        version: 1,
        id: "s1",
        provider: "ollama",
        model: "m",
        tools: [],
      },
      { time: "2026-01-01T00:00:01Z", type: "message", message: { role: "assistant", content: HOSTILE } },
    ];
    const file = join(root, "session.jsonl");
    await writeFile(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const text = await toolgate(["replay", file], { cwd: root });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(/[\x1b\x07\r\u202e]/);
    expect(text.stdout).toContain(
      "done\\x1b[2J\\x1b]0;owned\\x07\\r  sandbox: off<U+202E> ok 👨\u200d👩\u200d👧",
    );
    const json = await toolgate(["replay", file, "--json"], { cwd: root });
    expect(json.stdout).not.toMatch(/[\u202e\u200d]/);
    expect(JSON.parse(json.stdout)).toEqual(records);
  });
});
