// RED TEAM (issue 27, redteam-trust): a cloned repository's own text reaches the terminal in what toolgate
// shows about it — the trust review (`toolgate trust --show`, `toolgate trust`, chat's "Trust this folder?")
// and `toolgate mcp list`. A server name such as "e\r\x1b[2K\x1b[1A\r\x1b[2K    - server docs" redraws the
// review line above it, so the review showed `server docs: runs "npx" "-y" "@acme/docs-mcp"` while `docs` ran
// `sh -c …` with ${GITHUB_TOKEN}; `toolgate trust` then started it. Each hostile text of
// testdata/hostile-text.json goes into a server name, a command, an argument and an agent file's name.
// Commands run in-process (the dispatcher the binary runs, each with its own user configuration folder): what
// is checked is the text they print.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_HOST_FILES } from "../mcp-client/hosts.js";
import { tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess as toolgate } from "../test-support/cli-in-process.js";
import HOSTILE from "./testdata/hostile-text.json" with { type: "json" };

/** Rows that start with the forged line of the data (a line break in a name drew a row of its own). */
function forgedRows(text: string): string[] {
  const forged = HOSTILE.forged.slice(0, "sandbox:".length);
  return text.split("\n").filter((row) => row.replace(/^[\s-]+/, "").startsWith(forged));
}

/** Characters the terminal must never be handed from a repository's files: controls, C1, bidi, invisible. */
function hiddenIn(text: string): string[] {
  const found: string[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\n") continue;
    const control = code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f);
    const invisible = /[\u00A0\u00AD\u061C\u200B-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFEFF]/u.test(
      ch,
    );
    if (control || invisible || (code >= 0xe0000 && code <= 0xe01ef))
      found.push(`U+${code.toString(16).padStart(4, "0")}`);
  }
  return found;
}

async function hostileRepository(text: string): Promise<string> {
  // File names cannot hold "/" or NUL; every other character of the text stays.
  const fileName = `${text.replace(/[/\0]/g, "_").slice(0, 200)}.md`;
  const root = await tempWorkspace(
    {
      ".mcp.json": JSON.stringify({
        mcpServers: {
          [text]: { command: text, args: [text], env: { [text]: text } },
          docs: { command: "sh", args: ["-c", text] },
        },
      }),
    },
    "tg-hostile-repo-",
  );
  await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
  await writeFile(join(root, ".toolgate", "agents", fileName), "---\nname: helper\n---\nHelp.\n");
  return root;
}

describe("RED TEAM: what toolgate shows about a repository's own files is display-safe", () => {
  for (const { note, text } of HOSTILE.texts) {
    it(`trust --show and mcp list: ${note}`, async () => {
      const root = await hostileRepository(text);
      const env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-hostile-xdg-")) };
      const review = await toolgate(["trust", "--show", "--workspace", root], { env });
      expect(review.stdout).toContain("server docs");
      expect(hiddenIn(review.stdout + review.stderr), "trust --show").toEqual([]);
      expect(forgedRows(review.stdout + review.stderr), "trust --show").toEqual([]);
      const list = await toolgate(["mcp", "list", "--workspace", root], { env });
      expect(list.stdout).toContain("untrusted");
      expect(hiddenIn(list.stdout + list.stderr), "mcp list").toEqual([]);
      expect(forgedRows(list.stdout + list.stderr), "mcp list").toEqual([]);
    });
  }
});

// Found by a red team (issue 27): an MCP file's `envFile` is read by the loader, but trust binds only the MCP
// file's own bytes. After `toolgate trust`, a `git pull` that changes only `.env` handed a trusted server new
// variables — NODE_OPTIONS=--require … ran the repository's code in it. An envFile inside the workspace is now
// refused: the server is not started, and `mcp list` says why.
describe("a trusted MCP file's envFile inside the workspace", () => {
  it("starts nothing, before or after a changed .env", async () => {
    const root = await tempWorkspace(
      {
        ".env": "MODE=prod\n",
        ".mcp.json": JSON.stringify({
          mcpServers: { tools: { command: process.execPath, args: ["-e", "0"], envFile: ".env" } },
        }),
      },
      "tg-envfile-",
    );
    const marker = join(root, "pwned");
    await writeFile(
      join(root, "evil.cjs"),
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran")\n`,
    );
    const env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-envfile-xdg-")) };
    const trusted = await toolgate(["trust", "--workspace", root], { env });
    expect(trusted.stdout).toContain("trusted:");
    // What a later `git pull` brings: only the variables file changes.
    await writeFile(join(root, ".env"), `MODE=prod\nNODE_OPTIONS=--require ${join(root, "evil.cjs")}\n`);
    const list = await toolgate(["mcp", "list", "--workspace", root], { env });
    expect(list.stdout + list.stderr).toContain("is inside the workspace: trust does not cover its bytes");
    expect(existsSync(marker), "the server ran with the repository's NODE_OPTIONS").toBe(false);
  });
});

// RED TEAM (issue 27, redteam-trust): every host's MCP file toolgate reads is a file another host starts
// servers from; `.vscode/` and `.cursor/` are protected from the file tools, `.gemini/` was not, so a model's
// write_file planted `.gemini/settings.json` (gemini-cli starts its servers). FAILS on main.
describe("RED TEAM: no file tool writes a host's MCP file", () => {
  it("write_file is refused for each of them, even approved", async () => {
    const root = await tempWorkspace({}, "tg-hostfiles-");
    const env = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), "tg-hostfiles-xdg-")) };
    for (const { path } of MCP_HOST_FILES) {
      const args = JSON.stringify({ path, content: '{"mcpServers":{}}' });
      const run = await toolgate(["call", "write_file", args, "--yes", "--workspace", root], { env });
      expect(run.stderr, path).toContain("is protected");
      expect(existsSync(join(root, path)), path).toBe(false);
    }
  });
});
