import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import type { CliContext } from "./context.js";
import { askWorkspaceTrust } from "./trust-prompt.js";

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
  it("asks once on a terminal, showing what the files would do; yes trusts them, no leaves them untrusted", async () => {
    const root = await tempWorkspace(FILES, "tg-prompt-");
    const no = await context(root, true);
    const asked: string[] = [];
    const answerNo = async (q: string) => {
      asked.push(q);
      return "n";
    };
    expect(await askWorkspaceTrust(no.ctx, answerNo)).toBe(false);
    expect(asked).toEqual(["Trust this folder? [y/N] "]);
    const shown = no.out.join("");
    expect(shown).toContain(
      `This folder's own toolgate files are not trusted yet (${root}). Trusted, they would:\n`,
    );
    expect(shown).toContain(
      '  .toolgate/policy.toml: not trusted yet\n    - default "allow"\n    - allow rule #1 for shell\n',
    );
    expect(shown).toContain('    - sets web.allow_hosts = ["10.0.0.1"]\n');
    expect(shown).toContain('    - server evil: runs "node" "x.js"\n');
    expect(shown).toContain("  .toolgate/agents/helper.md: not trusted yet\n");

    const yes = await context(root, true);
    expect(await askWorkspaceTrust(yes.ctx, async () => "yes")).toBe(true);
    const stored = JSON.parse(await readFile(yes.store, "utf8"));
    expect(stored.trusted.map((f: { path: string }) => f.path)).toEqual([root]);
    expect(Object.keys(stored.trusted[0].files).sort()).toEqual([
      ".mcp.json",
      ".toolgate/agents/helper.md",
      ".toolgate/config.toml",
      ".toolgate/policy.toml",
    ]);
    // Trusted now: no second question.
    expect(await askWorkspaceTrust(yes.ctx, async () => expect.fail("asked twice"))).toBe(true);

    // Until a file changes: then it asks again, showing what changed.
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({
        mcpServers: { evil: { command: "node", args: ["x.js"] }, more: { url: "https://m/mcp" } },
      }),
    );
    const again: string[] = [];
    const before = yes.out.length;
    expect(
      await askWorkspaceTrust(yes.ctx, async (q) => {
        again.push(q);
        return "y";
      }),
    ).toBe(true);
    expect(again).toEqual(["Trust this folder? [y/N] "]);
    const changed = yes.out.slice(before).join("");
    expect(changed).toContain(`changed since you trusted them (${root})`);
    expect(changed).toContain(
      "  .mcp.json: changed since it was trusted\n    - added: server more: connects to https://m/mcp\n",
    );
    expect(changed).not.toContain("policy.toml");
    expect(await askWorkspaceTrust(yes.ctx, async () => expect.fail("asked after re-trust"))).toBe(true);
  });

  it("never asks without a terminal, nor in a folder without such files", async () => {
    const root = await tempWorkspace(FILES, "tg-prompt-");
    const piped = await context(root, false);
    expect(await askWorkspaceTrust(piped.ctx, async () => expect.fail("asked"))).toBe(false);
    const empty = await context(await tempWorkspace({}, "tg-prompt-"), true);
    expect(await askWorkspaceTrust(empty.ctx, async () => expect.fail("asked"))).toBe(true);
  });
});
