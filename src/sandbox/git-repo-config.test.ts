/**
 * A repository's own config reaches a sandboxed command only as a filtered copy kept by an allow-list: a table
 * of config lines (testdata/git-repo-config.json: the red team's H4 spellings, keys that run programs, URLs
 * with tokens in every place a URL has, and the keys everyday git needs) written with git into a real file and
 * read back through the filter with git.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanUrl, repoConfigCopyFile, repoSetting } from "./git-repo-config.js";
import { filteredGitConfig, parseListZ } from "./git-user-config.js";
import table from "./testdata/git-repo-config.json" with { type: "json" };

interface Row {
  note: string;
  key: string;
  value: string;
  kept: string | null;
  secret?: string;
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-git-repo-config-");
});
afterAll(() => rm(base, { recursive: true, force: true }));

const gitList = (file: string) =>
  parseListZ(
    execFileSync("git", ["config", "--file", file, "--no-includes", "--list", "-z"], { encoding: "utf8" }),
  );

describe("the repository config's copy keeps only what git needs", () => {
  it.each((table.cases as Row[]).map((row, i) => [row.note, row, i] as const))(
    "%s",
    async (_note, row, i) => {
      const file = join(base, `case-${i}`);
      execFileSync("git", ["config", "--file", file, "--add", row.key, row.value]);
      const [written] = gitList(file);
      const copy = filteredGitConfig(file, "git", repoSetting);
      expect(copy.note).toBeUndefined();
      await writeFile(`${file}.copy`, copy.text);
      const inside = gitList(`${file}.copy`);
      if (row.kept === null) expect(inside).toEqual([]);
      else expect(inside).toEqual([{ key: written!.key, value: row.kept }]);
      if (row.secret) expect(copy.text).not.toContain(row.secret);
    },
  );
});

describe("URLs keep their place without what carries credentials", () => {
  it.each([
    ["https://u:p@host/x?a=1#b", "https://host/x"],
    ["https://tok@host", "https://host"],
    ["https://host?tok", "https://host"],
    ["HTTPS://Me:Pw@Host:8443/a/b.git", "HTTPS://Host:8443/a/b.git"],
    ["u:pw@host:path/x.git", "host:path/x.git"],
    ["u:p@w@host:path", "host:path"],
    ["git@host:path", "git@host:path"],
    ["./local:dir", "./local:dir"],
    ["/srv/a@b:c", "/srv/a@b:c"],
  ])("%s → %s", (url, clean) => {
    expect(cleanUrl(url)).toBe(clean);
  });
});

it("fails closed: a file git cannot read gives an empty copy and a note", async () => {
  const file = join(base, "broken");
  await writeFile(file, '[remote "origin"]\n\turl = https://me:TOKEN@x/\n[core\n');
  const copy = filteredGitConfig(file, "git", repoSetting);
  expect(copy.text).toBe("");
  expect(copy.note).toMatch(/shown empty to the command: git could not read it/);
});

it("the copy is a private file git reads as the repository's settings, the original untouched", async () => {
  const file = join(base, "config");
  const original =
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\thooksPath = .githooks\n[remote "origin"]\n' +
    "\turl = https://x-access-token:ghs_0123456789abcdefABCDEF@github.com/acme/app.git\n" +
    "\tfetch = +refs/heads/*:refs/remotes/origin/*\n[gitlab]\n\tpersonalaccesstoken = glptt-shortone\n";
  await writeFile(file, original);
  const copy = repoConfigCopyFile(file);
  expect(copy.note).toBeUndefined();
  expect(((await stat(copy.path)).mode & 0o777).toString(8)).toBe("600");
  expect(gitList(copy.path)).toEqual([
    { key: "core.repositoryformatversion", value: "0" },
    { key: "core.bare", value: "false" },
    { key: "remote.origin.url", value: "https://github.com/acme/app.git" },
    { key: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" },
  ]);
  expect(await readFile(file, "utf8")).toBe(original);
});
