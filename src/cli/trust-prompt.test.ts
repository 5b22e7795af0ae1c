import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import type { CliContext } from "./context.js";
import { askWorkspaceTrust, describeWorkspaceFiles } from "./trust-prompt.js";

const FILES = {
  ".toolgate/policy.toml": 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
  ".toolgate/config.toml": '[web]\nallow_hosts = ["10.0.0.1"]\ntimeout_ms = 5\n',
  ".mcp.json": JSON.stringify({ mcpServers: { evil: { command: "node", args: ["x.js"] } } }),
  ".toolgate/agents/helper.md": "---\nname: helper\ndescription: h\ntools: ['*']\n---\nHelp.\n",
};

async function context(root: string, isTTY: boolean) {
  const xdg = await mkdtemp(join(tmpdir(), "tg-trust-xdg-"));
  const out: string[] = [];
  const ctx = {
    root,
    globals: {},
    io: {
      stdout: (t: string) => out.push(t),
      stderr: () => undefined,
      stdin: new PassThrough(),
      isTTY,
      env: { XDG_CONFIG_HOME: xdg },
      cwd: root,
    },
    gate: () => Promise.reject(new Error("not needed")),
  } as unknown as CliContext;
  return { ctx, out, store: join(xdg, "toolgate", "trusted.json") };
}

describe("the chat trust question", () => {
  it("describes what the files would allow and start", async () => {
    const root = await tempWorkspace(FILES, "tg-prompt-");
    expect(await describeWorkspaceFiles(root)).toEqual([
      '.toolgate/policy.toml: default "allow", 1 allow rule(s) for shell',
      '.toolgate/config.toml sets: web.allow_hosts = ["10.0.0.1"]',
      '.mcp.json server evil: runs "node" "x.js"',
      ".toolgate/agents: helper",
    ]);
  });

  it("asks once on a terminal; yes trusts the folder, no leaves it untrusted", async () => {
    const root = await tempWorkspace(FILES, "tg-prompt-");
    const no = await context(root, true);
    const asked: string[] = [];
    const answerNo = async (q: string) => {
      asked.push(q);
      return "n";
    };
    expect(await askWorkspaceTrust(no.ctx, answerNo)).toBe(false);
    expect(asked).toEqual(["Trust this folder? [y/N] "]);
    expect(no.out.join("")).toContain('.mcp.json server evil: runs "node" "x.js"');

    const yes = await context(root, true);
    expect(await askWorkspaceTrust(yes.ctx, async () => "yes")).toBe(true);
    const stored = JSON.parse(await readFile(yes.store, "utf8"));
    expect(stored.trusted.map((f: { path: string }) => f.path)).toEqual([root]);
    // Trusted now: no second question.
    expect(await askWorkspaceTrust(yes.ctx, async () => expect.fail("asked twice"))).toBe(true);
  });

  it("never asks without a terminal, nor in a folder without such files", async () => {
    const root = await tempWorkspace(FILES, "tg-prompt-");
    const piped = await context(root, false);
    expect(await askWorkspaceTrust(piped.ctx, async () => expect.fail("asked"))).toBe(false);
    const empty = await context(await tempWorkspace({}, "tg-prompt-"), true);
    expect(await askWorkspaceTrust(empty.ctx, async () => expect.fail("asked"))).toBe(false);
  });
});
