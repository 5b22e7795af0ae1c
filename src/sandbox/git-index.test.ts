/**
 * The index reader's bounds, on real files: a command can make `.git/index` any size (a sparse file costs
 * nothing), and every later survey would read it whole. Only the header is read before it is refused.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readInsideSync } from "./descriptors.js";
import { indexGitlinks, indexRefusal, trackedUnchanged } from "./git-index.js";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-index-"));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const header = (version: number, count: number) => {
  const head = Buffer.alloc(12);
  head.write("DIRC", 0, "latin1");
  head.writeUInt32BE(version, 4);
  head.writeUInt32BE(count, 8);
  return head;
};

describe("indexRefusal", () => {
  it.each([
    ["a 1,000 MB sparse file", 1000 * 1024 * 1024, 8, header(2, 1), /larger than/],
    ["a sparse file under the limit", 100 * 1024 * 1024, 8, header(2, 1), /holes/],
    ["not an index", 4096, 8, Buffer.from("garbage-garbage"), /not a git index/],
    ["an unknown version", 4096, 8, header(9, 1), /version 9/],
    ["more entries than bytes", 4096, 8, header(2, 1_000_000), /entry count/],
  ])("refuses %s", (_name, size, blocks, head, why) => {
    expect(indexRefusal(size, blocks, head)).toMatch(why);
  });

  it("reads a real index", () => {
    const repo = join(base, "r");
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(join(repo, ".env.example"), "x\n");
    execFileSync("touch", ["-d", "2020-01-01", join(repo, ".env.example")]);
    execFileSync("git", ["-C", repo, "add", ".env.example"]);
    const index = join(repo, ".git", "index");
    const stat = statSync(index);
    expect(indexRefusal(stat.size, stat.blocks, readInsideSync(index, 12, { head: true }))).toBeUndefined();
    expect([...trackedUnchanged(repo, join(repo, ".git"), [".env.example"])]).toEqual([".env.example"]);
  });

  it("counts nothing tracked in a sparse 1,000 MB index (every secret stays hidden)", () => {
    const repo = join(base, "s");
    mkdirSync(join(repo, ".git"), { recursive: true });
    writeFileSync(join(repo, ".git", "index"), header(2, 1));
    truncateSync(join(repo, ".git", "index"), 1000 * 1024 * 1024);
    expect(trackedUnchanged(repo, join(repo, ".git"), [".env"]).size).toBe(0);
  });
});

describe("indexGitlinks", () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, stdio: "pipe" });

  it("lists the embedded repositories and submodules an index records, wherever they sit", () => {
    const repo = join(base, "r");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    git(base, "init", "-q", repo);
    writeFileSync(join(repo, "a.txt"), "a\n");
    for (const sub of ["node_modules/lib", "vendor/x"]) {
      git(base, "init", "-q", join(repo, sub));
      git(join(repo, sub), "commit", "-q", "--allow-empty", "-m", "x");
    }
    git(repo, "add", "-f", "a.txt", "node_modules/lib", "vendor/x");
    expect(indexGitlinks(join(repo, ".git"))?.sort()).toEqual(["node_modules/lib", "vendor/x"]);
  });

  it("reads the shared index a split index names (git update-index --split-index moves every entry there)", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    git(base, "init", "-q", join(repo, "node_modules/lib"));
    git(join(repo, "node_modules/lib"), "commit", "-q", "--allow-empty", "-m", "x");
    git(repo, "add", "-f", "node_modules/lib");
    git(repo, "update-index", "--split-index");
    expect(indexGitlinks(join(repo, ".git"))).toEqual(["node_modules/lib"]);
    for (const name of readdirSync(join(repo, ".git")).filter((n) => n.startsWith("sharedindex.")))
      rmSync(join(repo, ".git", name));
    expect(indexGitlinks(join(repo, ".git"))).toBeUndefined();
  });

  it("cannot tell for an index with an extension a reader must understand (lowercase: sdir, unknown)", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    writeFileSync(join(repo, "a.txt"), "a\n");
    git(repo, "add", "a.txt");
    const index = readFileSync(join(repo, ".git", "index"));
    const body = index.subarray(0, index.length - 20);
    const extension = Buffer.concat([Buffer.from("sdir"), Buffer.from([0, 0, 0, 0])]);
    writeFileSync(join(repo, ".git", "index"), Buffer.concat([body, extension, Buffer.alloc(20)]));
    expect(indexGitlinks(join(repo, ".git"))).toBeUndefined();
  });

  it("cannot tell for a format-4 index whose names add up past its bound (quadratic growth, red team G7)", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    // Each entry keeps the previous name but its last byte and adds 200: 9,000 entries in 2 MB spell ~8 GB of
    // names, which killed the process that read them whole.
    const entry = Buffer.concat([
      Buffer.alloc(40 + 20),
      Buffer.from([0x0f, 0xff, 0x01]),
      Buffer.alloc(200, "a"),
      Buffer.from([0]),
    ]);
    entry.writeUInt32BE(0o100644, 24);
    const first = Buffer.from(entry);
    first[62] = 0x00; // The first name cuts nothing.
    const entries = [first, ...Array.from({ length: 8999 }, () => entry)];
    writeFileSync(
      join(repo, ".git", "index"),
      Buffer.concat([header(4, 9000), ...entries, Buffer.alloc(20)]),
    );
    const before = process.memoryUsage().heapUsed;
    expect(indexGitlinks(join(repo, ".git"))).toBeUndefined();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(512 * 1024 * 1024);
  });

  it("reads an index holding a name longer than PATH_MAX, leaving that name out (no git reaches it)", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    const gitlink = (name: string) => {
      const fixed = Buffer.alloc(62);
      fixed.writeUInt32BE(0o160000, 24);
      fixed.writeUInt16BE(Math.min(name.length, 0xfff), 60);
      const used = 62 + name.length;
      return Buffer.concat([fixed, Buffer.from(name, "latin1"), Buffer.alloc(((used + 8) & ~7) - used)]);
    };
    const long = `${"d/".repeat(2600)}x`;
    writeFileSync(
      join(repo, ".git", "index"),
      Buffer.concat([header(2, 2), gitlink(long), gitlink("vendor/lib"), Buffer.alloc(20)]),
    );
    expect(indexGitlinks(join(repo, ".git"))).toEqual(["vendor/lib"]);
  });

  it("cannot tell for a format-4 index that cuts more than the previous name holds", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    const entry = Buffer.concat([Buffer.alloc(40 + 20), Buffer.from([0x00, 0x01, 0x05]), Buffer.from("a\0")]);
    entry.writeUInt32BE(0o100644, 24);
    writeFileSync(join(repo, ".git", "index"), Buffer.concat([header(4, 1), entry, Buffer.alloc(20)]));
    expect(indexGitlinks(join(repo, ".git"))).toBeUndefined();
  });

  it("says none for a repository without an index, and cannot tell for a refused one", () => {
    const repo = join(base, "r");
    git(base, "init", "-q", repo);
    expect(indexGitlinks(join(repo, ".git"))).toEqual([]);
    writeFileSync(join(repo, ".git", "index"), "garbage-garbage-garbage");
    expect(indexGitlinks(join(repo, ".git"))).toBeUndefined();
  });
});
