import { mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  contentDigest,
  fileTrust,
  folderTrusted,
  readTrustedFolders,
  type TrustedFolder,
  trustLookup,
  untrustedBecause,
  writeTrustedFolders,
} from "./trust.js";
import { trustedFileKinds, trustedFilesOf } from "./trusted-files.js";

const POLICY = 'default = "ask"\n';
const record = (path: string, files: Record<string, string>): TrustedFolder => ({
  path,
  since: "2024-01-01T00:00:00.000Z",
  files: Object.fromEntries(Object.entries(files).map(([k, text]) => [k, { sha256: contentDigest(text) }])),
});

async function store(data: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tg-store-"));
  const file = join(dir, "trusted.json");
  await writeFile(file, typeof data === "string" ? data : JSON.stringify(data));
  return file;
}

describe("the trust list's file", () => {
  it("reads a version 1 list as records without digests, and writes version 2", async () => {
    const file = await store({ version: 1, trusted: [{ path: "/p", since: "2024-01-01" }] });
    const folders = readTrustedFolders(file);
    expect(folders).toEqual([{ path: "/p", since: "2024-01-01" }]);
    await writeTrustedFolders([...folders, record("/a", { ".mcp.json": "{}" })], file);
    const written = JSON.parse(await readFile(file, "utf8"));
    expect(written.version).toBe(2);
    expect(written.trusted.map((f: TrustedFolder) => f.path)).toEqual(["/a", "/p"]);
    expect(readTrustedFolders(file)).toEqual(written.trusted);
  });

  it.each([
    ["not JSON", "{", "not valid JSON"],
    ["an unknown version", { version: 3, trusted: [] }, "expected"],
    ["a relative path", { version: 2, trusted: [{ path: "p", since: "x" }] }, "expected"],
    [
      "a bad digest",
      { version: 2, trusted: [{ path: "/p", since: "x", files: { a: { sha256: "zz" } } }] },
      "expected",
    ],
    [
      "a file key leaving the folder",
      { version: 2, trusted: [{ path: "/p", since: "x", files: { "../a": { sha256: "a".repeat(64) } } }] },
      "expected",
    ],
    [
      "another content mode",
      { version: 2, trusted: [{ path: "/p", since: "x", content: "all" }] },
      "expected",
    ],
  ])("refuses %s (a broken list trusts nothing)", async (_name, data, message) => {
    const file = await store(data);
    expect(() => readTrustedFolders(file)).toThrow(message);
    const lookup = trustLookup(file);
    const answer = lookup.file("/p/.mcp.json", "{}");
    expect(answer.state).toBe("not-trusted");
    expect(untrustedBecause(answer)).toContain(file);
    expect(lookup.covers("/p")).toBe(false);
  });
});

describe("fileTrust: a file counts only with the bytes trusted", () => {
  const folders = [record("/w", { ".toolgate/policy.toml": POLICY })];

  it.each([
    ["the same bytes", "/w/.toolgate/policy.toml", POLICY, "trusted"],
    ["other bytes", "/w/.toolgate/policy.toml", 'default = "allow"\n', "changed"],
    ["a file trust did not record", "/w/.mcp.json", "{}", "new"],
    ["the same file name one folder down", "/w/pkg/.toolgate/policy.toml", POLICY, "new"],
    ["a folder outside", "/x/.toolgate/policy.toml", POLICY, "not-trusted"],
    ["a sibling whose name starts the same", "/w2/.toolgate/policy.toml", POLICY, "not-trusted"],
  ])("%s → %s", (_name, file, text, state) => {
    expect(fileTrust(folders, file, text).state).toBe(state);
    expect(fileTrust(folders, file, { sha256: contentDigest(text) }).state).toBe(state);
  });

  it("a record without digests (the first list's) trusts nothing and says why", () => {
    const answer = fileTrust([{ path: "/w", since: "x" }], "/w/.mcp.json", "{}");
    expect(answer).toEqual({ state: "no-digest", folder: "/w" });
    expect(untrustedBecause(answer)).toBe(
      "is in /w, trusted by an older toolgate that recorded no digest of its files",
    );
    expect(folderTrusted([{ path: "/w", since: "x" }], "/w")).toBe(false);
  });

  it('`content: "any"` trusts every file below, whatever its bytes', () => {
    const any: TrustedFolder[] = [{ path: "/t", since: "x", content: "any" }];
    expect(fileTrust(any, "/t/a/b/.mcp.json", "anything").state).toBe("trusted");
    expect(folderTrusted(any, "/t/a")).toBe(true);
  });

  it("a changed file names what was trusted; the most telling answer wins across folders", () => {
    const nested = [record("/w", {}), record("/w/pkg", { ".mcp.json": "{}" })];
    const answer = fileTrust(nested, "/w/pkg/.mcp.json", '{"mcpServers":{}}');
    expect(answer.state).toBe("changed");
    expect(answer.folder).toBe("/w/pkg");
    expect(answer.recorded?.sha256).toBe(contentDigest("{}"));
    expect(untrustedBecause(answer)).toBe("changed since /w/pkg was trusted");
    expect(untrustedBecause(fileTrust(nested, "/w/.mcp.json", "{}"))).toBe("appeared after /w was trusted");
  });
});

describe("the files trust covers", () => {
  it("finds the ones present, the agents by their pattern, following links", async () => {
    const root = await mkdtemp(join(tmpdir(), "tg-covered-"));
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    await mkdir(join(root, ".vscode"));
    await writeFile(join(root, ".toolgate", "policy.toml"), POLICY);
    await writeFile(join(root, ".toolgate", "agents", "b.md"), "b");
    await writeFile(join(root, ".toolgate", "agents", "a.md"), "a");
    await writeFile(join(root, ".toolgate", "agents", "notes.txt"), "x");
    await writeFile(join(root, "elsewhere.json"), "{}");
    await symlink(join(root, "elsewhere.json"), join(root, ".vscode", "mcp.json"));
    expect((await trustedFilesOf(root)).map((f) => f.path)).toEqual([
      ".toolgate/policy.toml",
      ".toolgate/agents/a.md",
      ".toolgate/agents/b.md",
      ".vscode/mcp.json",
    ]);
  });

  it.each([
    [".toolgate/policy.toml", ["policy"]],
    [".toolgate/agents/helper.md", ["agent"]],
    [".gemini/settings.json", ["mcp", "hooks"]],
    [".claude/settings.json", ["hooks"]],
    [".codex/hooks.json", ["hooks"]],
    [".codex/config.toml", ["hooks"]],
    [".toolgate/agents/x.txt", undefined],
    ["pkg/.mcp.json", undefined],
  ])("%s has kinds %j", (path, kinds) => {
    expect(trustedFileKinds(path)).toEqual(kinds);
  });
});
