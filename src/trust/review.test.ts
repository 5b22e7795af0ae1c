// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write MCP files' ${VAR} references, not templates
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_HOST_FILES } from "../mcp-client/hosts.js";
import { tempWorkspace } from "../test-support/cli.js";
import { fileTrust, readTrustedFolders, TRUSTED_FILES, trustedFileKinds } from "../workspace/index.js";
import {
  forgetFolder,
  formatReview,
  needsTrust,
  retrustFile,
  reviewWorkspace,
  trustReview,
} from "./index.js";

const POLICY = 'default = "ask"\n\n[[rules]]\ntool = "read_file"\ndecision = "deny"\n';
const MCP = JSON.stringify({ mcpServers: { files: { command: "node", args: ["files.js"] } } });

async function newStore(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "tg-review-xdg-")), "toolgate", "trusted.json");
}

async function review(root: string, store: string) {
  return reviewWorkspace(root, readTrustedFolders(store));
}

describe("the files trust covers", () => {
  it("include every host's MCP file toolgate reads, as kind mcp", () => {
    for (const host of MCP_HOST_FILES) expect(trustedFileKinds(host.path), host.path).toContain("mcp");
    expect(TRUSTED_FILES.map((f) => f.path)).toContain(".toolgate/agents/*.md");
  });
});

describe("reviewing a workspace", () => {
  it("describes what untrusted files turn on, with the host variables each server is handed", async () => {
    const root = await tempWorkspace(
      {
        ".toolgate/policy.toml":
          'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = ["ls"] }\n' +
          '[[rules]]\ntool = "shell"\ndecision = "ask"\nsandbox = "off"\n',
        ".toolgate/config.toml":
          '[web]\nallow_hosts = ["10.0.0.1"]\ntimeout_ms = 5\n[files]\nprotected = ["!.git", "x"]\n',
        ".mcp.json": JSON.stringify({
          mcpServers: {
            gh: { url: "https://api.example/mcp", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
            run: {
              command: "npx",
              args: ["-y", "srv", "--key=${env:API_KEY}"],
              env: { HOME_DIR: "${HOME:-/h}" },
            },
          },
        }),
        ".gemini/settings.json": JSON.stringify({ mcpServers: { g: { command: "g", args: ["$SECRET"] } } }),
        ".toolgate/agents/helper.md": "---\nname: helper\n---\nHelp.\n",
      },
      "tg-review-",
    );
    const r = await review(root, await newStore());
    expect(needsTrust(r)).toBe(true);
    expect(formatReview(r)).toBe(
      [
        "  .toolgate/policy.toml: not trusted yet",
        '    - default "allow"',
        "    - allow rule #1 for shell when command",
        '    - ask rule #2 for shell grants sandbox = "off"',
        "    - 1 deny or ask rule(s) (these apply untrusted too)",
        "  .toolgate/config.toml: not trusted yet",
        '    - sets web.allow_hosts = ["10.0.0.1"]',
        '    - exempts from its own protected paths: "!.git"',
        "  .toolgate/agents/helper.md: not trusted yet",
        "  .mcp.json: not trusted yet",
        "    - server gh: connects to https://api.example/mcp; passes host variables: headers.Authorization ← ${GITHUB_TOKEN}",
        '    - server run: runs "npx" "-y" "srv" "--key=${env:API_KEY}"; passes host variables: args[2] ← ${API_KEY}; env.HOME_DIR ← ${HOME}',
        "  .gemini/settings.json: not trusted yet",
        '    - server g: runs "g" "$SECRET"; passes host variables: args[0] ← ${SECRET}',
        "",
      ].join("\n"),
    );
  });

  it("after trust, shows what changed: servers added, changed and removed, rules loosened, variables passed", async () => {
    const root = await tempWorkspace(
      {
        ".toolgate/policy.toml": POLICY,
        ".mcp.json": JSON.stringify({
          mcpServers: { files: { command: "node", args: ["files.js"] }, old: { command: "old" } },
        }),
        ".toolgate/config.toml": '[web]\nallow_hosts = ["10.0.0.1"]\n',
      },
      "tg-review-",
    );
    const store = await newStore();
    await trustReview(await review(root, store), store);
    expect(needsTrust(await review(root, store))).toBe(false);

    await writeFile(
      join(root, ".toolgate", "policy.toml"),
      'default = "allow"\n\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    );
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          files: { command: "node", args: ["files.js", "--all"] },
          gh: { type: "http", url: "https://x/mcp", headers: { "X-Key": "${KEY}" } },
        },
      }),
    );
    await writeFile(
      join(root, ".toolgate", "config.toml"),
      '[web]\nallow_hosts = ["10.0.0.1"]\ntimeout_ms = 9\n',
    );
    const after = await review(root, store);
    expect(after.files.map((f) => [f.path, f.status])).toEqual([
      [".toolgate/policy.toml", "changed"],
      [".toolgate/config.toml", "changed"],
      [".mcp.json", "changed"],
    ]);
    expect(formatReview(after)).toBe(
      [
        "  .toolgate/policy.toml: changed since it was trusted",
        '    - default "ask" → "allow" (looser)',
        "    - removed: deny rule #1 for read_file (looser)",
        "    - added: allow rule #1 for shell (looser)",
        "  .toolgate/config.toml: changed since it was trusted",
        "    - nothing it allows, sets or starts changed",
        "  .mcp.json: changed since it was trusted",
        '    - changed: server files: runs "node" "files.js" "--all"',
        "    - added: server gh: connects to https://x/mcp; passes host variables: headers.X-Key ← ${KEY}",
        "    - removed: server old",
        "",
      ].join("\n"),
    );
  });

  it("lists a config's [[hooks]] with their commands, and hooks added or removed after trust", async () => {
    const hook = (name: string, command: string) =>
      `[[hooks]]\nname = "${name}"\nevent = "pre_tool"\ntools = ["shell"]\ncommand = "${command}"\n`;
    const root = await tempWorkspace(
      { ".toolgate/config.toml": `hooks_may_allow = true\n${hook("guard", "./guard.sh")}` },
      "tg-review-",
    );
    const store = await newStore();
    const first = await review(root, store);
    expect(formatReview(first)).toBe(
      [
        "  .toolgate/config.toml: not trusted yet",
        "    - sets hooks_may_allow = true",
        '    - hook "guard" pre_tool [shell]: runs "./guard.sh"',
        "",
      ].join("\n"),
    );
    await trustReview(first, store);
    await writeFile(join(root, ".toolgate", "config.toml"), hook("scan", "python3 scan.py"));
    expect(formatReview(await review(root, store))).toBe(
      [
        "  .toolgate/config.toml: changed since it was trusted",
        "    - removed: hooks_may_allow (was true)",
        '    - added: hook "scan" pre_tool [shell]: runs "python3 scan.py"',
        '    - removed: hook "guard" pre_tool [shell]: runs "./guard.sh"',
        "",
      ].join("\n"),
    );
  });

  it("a file that appears in a trusted folder is new, and one removed is named", async () => {
    const root = await tempWorkspace({ ".toolgate/policy.toml": POLICY }, "tg-review-");
    const store = await newStore();
    await trustReview(await review(root, store), store);
    await rm(join(root, ".toolgate", "policy.toml"));
    await writeFile(join(root, ".mcp.json"), MCP);
    const r = await review(root, store);
    expect(r.files.map((f) => [f.path, f.status])).toEqual([
      [".mcp.json", "new"],
      [".toolgate/policy.toml", "removed"],
    ]);
    expect(formatReview(r)).toContain(
      '  .mcp.json: new since the folder was trusted\n    - server files: runs "node" "files.js"\n',
    );
  });

  it("a file that does not parse is described as such, and still bound by its digest", async () => {
    const root = await tempWorkspace(
      { ".mcp.json": "{ not json", ".toolgate/policy.toml": "= x" },
      "tg-review-",
    );
    const r = await review(root, await newStore());
    expect(r.files.map((f) => f.lines[0])).toEqual([
      expect.stringMatching(/^does not parse \(/),
      expect.stringMatching(/^does not parse \(.*not valid JSON/),
    ]);
    expect(r.files.every((f) => f.record?.sha256.length === 64)).toBe(true);
  });
});

describe("recording trust", () => {
  it("trusts exactly the bytes reviewed: a file changed after the review stays untrusted", async () => {
    const root = await tempWorkspace({ ".mcp.json": MCP }, "tg-review-");
    const store = await newStore();
    const shown = await review(root, store);
    await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { evil: { command: "sh" } } }));
    await trustReview(shown, store);
    const now = await readFile(join(root, ".mcp.json"));
    expect(fileTrust(readTrustedFolders(store), join(root, ".mcp.json"), now).state).toBe("changed");
    expect(fileTrust(readTrustedFolders(store), join(root, ".mcp.json"), MCP).state).toBe("trusted");
  });

  it("retrustFile records one file toolgate wrote, keeping the folder's other records; forgetFolder removes it", async () => {
    const root = await tempWorkspace({ ".mcp.json": MCP }, "tg-review-");
    const store = await newStore();
    // A record of the first list (no digests) starts over with the file written.
    await mkdir(dirname(store), { recursive: true });
    await writeFile(store, JSON.stringify({ version: 1, trusted: [{ path: root, since: "2020-01-01" }] }));
    await retrustFile(root, ".toolgate/policy.toml", POLICY, store);
    let folders = readTrustedFolders(store);
    expect(folders).toHaveLength(1);
    expect(Object.keys(folders[0]!.files!)).toEqual([".toolgate/policy.toml"]);
    expect(folders[0]!.since).not.toBe("2020-01-01");
    expect(fileTrust(folders, join(root, ".toolgate", "policy.toml"), POLICY).state).toBe("trusted");
    // Not the .mcp.json that was already there: nobody reviewed it.
    expect(fileTrust(folders, join(root, ".mcp.json"), MCP).state).toBe("new");

    // Several writers at once (two `always` answers, init): none loses the other's record.
    await Promise.all(
      ["a", "b", "c", "d"].map((n) => retrustFile(root, `.toolgate/agents/${n}.md`, `agent ${n}`, store)),
    );
    folders = readTrustedFolders(store);
    expect(Object.keys(folders[0]!.files!).sort()).toEqual([
      ".toolgate/agents/a.md",
      ".toolgate/agents/b.md",
      ".toolgate/agents/c.md",
      ".toolgate/agents/d.md",
      ".toolgate/policy.toml",
    ]);
    expect(folders[0]!.files![".toolgate/policy.toml"]!.facts).toEqual({
      policy: { default: "ask", rules: [expect.objectContaining({ decision: "deny" })] },
    });

    expect(await forgetFolder(root, store)).toEqual({ folders: [], removed: true });
    expect(await forgetFolder(root, store)).toEqual({ folders: [], removed: false });
  });

  it('retrustFile leaves a list alone where a `content: "any"` record holds the folder', async () => {
    const root = await tempWorkspace({}, "tg-review-");
    const store = await newStore();
    await mkdir(dirname(store), { recursive: true });
    const any = { version: 2, trusted: [{ path: join(root, ".."), since: "x", content: "any" }] };
    await writeFile(store, JSON.stringify(any));
    await retrustFile(root, ".toolgate/policy.toml", POLICY, store);
    expect(JSON.parse(await readFile(store, "utf8"))).toEqual(any);
  });
});
