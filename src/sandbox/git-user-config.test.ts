/**
 * The user's git config reaches a sandboxed command only as a filtered copy: a table of config lines
 * (testdata/git-user-config.json) written with git and read back through the filter, and through the real
 * binary a home whose ~/.gitconfig and ~/.config/git/config hold tokens.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolgate } from "../test-support/cli.js";
import { filteredGitConfig, formatGitConfig, parseListZ } from "./git-user-config.js";
import table from "./testdata/git-user-config.json" with { type: "json" };

let base: string;
beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-git-user-config-");
});
afterAll(() => rm(base, { recursive: true, force: true }));

const gitList = (file: string) =>
  parseListZ(
    execFileSync("git", ["config", "--file", file, "--no-includes", "--list", "-z"], { encoding: "utf8" }),
  );

describe("the filtered copy", () => {
  it.each(table.cases)("$key = $value → kept: $kept", async ({ key, value, kept }) => {
    const file = join(base, `case-${table.cases.findIndex((c) => c.key === key && c.value === value)}`);
    execFileSync("git", ["config", "--file", file, "user.name", "Ada Tester"]);
    execFileSync("git", ["config", "--file", file, "--add", key, value]);
    const copy = filteredGitConfig(file);
    expect(copy.note).toBeUndefined();
    const copied = join(`${file}.copy`);
    await writeFile(copied, copy.text);
    const settings = gitList(copied);
    expect(settings).toContainEqual({ key: "user.name", value: "Ada Tester" });
    const want = { key: gitList(file).at(-1)!.key, value };
    if (kept) expect(settings).toContainEqual(want);
    else expect(settings).not.toContainEqual(want);
    if (!kept) expect(copy.text).not.toContain(`"${value}"`);
  });

  it("writes back values git reads the same (quotes, backslashes, newlines, subsections with dots)", async () => {
    const settings = [
      { key: "user.name", value: 'A "quoted" \\ name\twith\nlines' },
      { key: "color.diff.meta", value: "yellow bold" },
      { key: "safe.directory", value: "/srv/a.b" },
      { key: "core.filemode", value: undefined },
    ];
    const file = join(base, "roundtrip");
    await writeFile(file, formatGitConfig(settings));
    expect(gitList(file)).toEqual(settings);
  });

  it("fails closed: a file git cannot read gives an empty copy and a note", async () => {
    const file = join(base, "broken");
    await writeFile(file, '[user]\n\tname = Ada\n[url "https://me:TOKEN@x/"\n\tinsteadOf = y\n');
    const copy = filteredGitConfig(file);
    expect(copy.text).toBe("");
    expect(copy.note).toMatch(/shown empty to the command: git could not read it/);
    expect(filteredGitConfig(file, "/nonexistent/git").text).toBe("");
  });
});

it("a sandboxed command reads the user's name from its git config but none of its tokens", async () => {
  const home = join(base, "home");
  const ws = join(home, "ws");
  await mkdir(join(home, ".config", "git"), { recursive: true });
  await mkdir(ws, { recursive: true });
  const global = join(home, ".gitconfig");
  const set = (file: string, ...args: string[]) => execFileSync("git", ["config", "--file", file, ...args]);
  set(global, "user.name", "Ada Tester");
  set(global, "alias.st", "status -sb");
  set(global, "url.https://me:ghp_TOKEN1@github.com/.insteadOf", "https://github.com/");
  set(global, "http.https://gitlab.example.com/.extraheader", "AUTHORIZATION: basic TOKEN2");
  set(global, "credential.helper", "!f() { echo password=TOKEN3; }; f");
  set(global, "include.path", join(home, "secrets.inc"));
  set(global, "alias.pr", "!curl -H 'Authorization: token TOKEN4' https://api.github.com");
  const xdg = join(home, ".config", "git", "config");
  set(xdg, "user.email", "ada@example.com");
  set(xdg, "http.extraheader", "Authorization: Bearer TOKEN5");
  const policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  const command = "cat ~/.gitconfig ~/.config/git/config; git config --global --list; echo done";
  const r = await toolgate(
    ["call", "shell", JSON.stringify({ command }), "--json", "--workspace", ws, "--policy", policy],
    { cwd: ws, env: { HOME: home, XDG_CONFIG_HOME: join(base, "xdg"), XDG_STATE_HOME: join(base, "state") } },
  );
  const out = JSON.parse(r.stdout) as { ok: boolean; llmContent: string };
  expect(out.ok, r.stderr).toBe(true);
  expect(out.llmContent).toContain("done");
  expect(out.llmContent).toContain("user.name=Ada Tester");
  expect(out.llmContent).toContain("alias.st=status -sb");
  expect(out.llmContent).toContain('email = "ada@example.com"');
  expect(out.llmContent).not.toMatch(/TOKEN\d|insteadof|extraheader|credential|include|secrets\.inc/i);
});
