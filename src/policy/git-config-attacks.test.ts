/**
 * Each row of `testdata/git-config-attacks.json` against real git: the config is planted in a fresh
 * repository (the workspace's, a nested one, a submodule), the command is analysed by the command kind with
 * the repository-config check, which must name the key (so no allow rule vouches for it), and then run by
 * real git with toolgate's own switches (`SHELL_FIXED_ENV`), which must run the planted program — the row is
 * a true attack. Keys the switches neutralise are not flagged, and git must then not run them, though it
 * does without the switches.
 *
 * Every repository a row needs starts as a copy of one template built by git once per file (f.txt and the
 * `.gitattributes` giving every file the driver `drv`, committed): copying is a few file writes where
 * `git init`, `add` and `commit` were three git processes per repository. The copy is a real repository;
 * its index's stat data no longer matches, so git re-reads f.txt, as after any checkout by another tool.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHELL_FIXED_ENV } from "../tools/shell/env.js";
import { withGitConfigCheck } from "./git-config-hazards.js";
import { GIT_HAZARD_KEYS, keyMatches } from "./git-hazards.js";
import { createCommandKind } from "./shell/index.js";
import ATTACKS from "./testdata/git-config-attacks.json" with { type: "json" };

interface Row {
  note: string;
  key: string;
  config: Record<string, string>;
  where: "repo" | "nested" | "submodule" | "nested-submodule";
  prepare: string;
  command: string;
  cwd?: string;
  stdin?: string;
  tty?: boolean;
  runs?: boolean | null;
  why?: string;
  flags?: boolean;
}

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** The repository every row's repositories are copied from (see the top of the file). */
let template = "";
beforeAll(() => {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "tg-git-attack-template-")));
  temps.push(top);
  template = join(top, "repo");
  mkdirSync(template);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: template,
      env: { ...GIT_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: top },
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "-q", "-b", "main");
  writeFileSync(join(template, "f.txt"), "a\n");
  writeFileSync(join(template, ".gitattributes"), "* diff=drv merge=drv filter=drv\n");
  git("add", ".");
  git("commit", "-q", "-m", "init");
});

/** Git's environment in every world but PATH and HOME, which are the world's. */
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
  LC_ALL: "C",
  // Where a row runs under a terminal, git colours (and so filters) only for a terminal it knows.
  TERM: "xterm",
};

/** One row's world: a temporary folder with the workspace repository, the program and its marker. */
class World {
  readonly top = realpathSync(mkdtempSync(join(tmpdir(), "tg-git-attack-")));
  readonly ws = join(this.top, "ws");
  readonly bin = join(this.top, "bin");
  readonly marker = join(this.top, "ran");
  readonly program = join(this.bin, "evil");
  readonly hooks = join(this.top, "hooks");
  readonly env: Record<string, string> = {
    PATH: `${join(this.top, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: join(this.top, "home"),
    ...GIT_ENV,
  };

  constructor() {
    temps.push(this.top);
    mkdirSync(this.bin);
    mkdirSync(this.hooks);
    mkdirSync(this.env.HOME!);
    // Records that it ran, then passes its input through (a filter, a textconv, a pager).
    const script = `#!/bin/sh\necho "$0 $*" >> '${this.marker}'\nexec timeout 2 cat 2>/dev/null\n`;
    for (const name of ["evil", "git-remote-evil"]) {
      writeFileSync(join(this.bin, name), script);
      chmodSync(join(this.bin, name), 0o755);
    }
    writeFileSync(join(this.hooks, "pre-commit"), script);
    chmodSync(join(this.hooks, "pre-commit"), 0o755);
    this.repo(this.ws);
  }

  git(cwd: string, ...args: string[]): string {
    return execFileSync("git", ["-c", "protocol.file.allow=always", ...args], {
      cwd,
      env: this.env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  }

  /** A repository with f.txt and every file given the driver `drv`: a copy of the template. */
  repo(dir: string): void {
    cpSync(template, dir, { recursive: true });
  }

  /** Adds a submodule `sub` to `dir` from a new repository (with a submodule `inner` of its own if asked). */
  submodule(dir: string, nested: boolean): void {
    const source = join(this.top, "subsrc");
    this.repo(source);
    if (nested) {
      this.repo(join(this.top, "innersrc"));
      this.git(source, "submodule", "add", "-q", "../innersrc", "inner");
      this.git(source, "commit", "-q", "-m", "inner");
    }
    this.git(dir, "submodule", "add", "-q", "../subsrc", "sub");
    this.git(dir, "commit", "-q", "-m", "sub");
    if (nested) this.git(dir, "submodule", "update", "-q", "--init", "--recursive");
  }

  /** The repository the row's config goes into. */
  target(where: Row["where"]): string {
    if (where === "nested") {
      this.repo(join(this.ws, "nested"));
      return join(this.ws, "nested");
    }
    if (where === "submodule" || where === "nested-submodule") {
      this.submodule(this.ws, where === "nested-submodule");
      return where === "submodule" ? join(this.ws, "sub") : join(this.ws, "sub", "inner");
    }
    return this.ws;
  }

  prepare(what: string, dir: string): void {
    const file = join(dir, "f.txt");
    switch (what) {
      case "touch":
        utimesSync(file, new Date("2001-01-01"), new Date("2001-01-01"));
        return;
      case "modify":
        writeFileSync(file, "a\nb\n");
        return;
      case "remove":
        rmSync(file);
        return;
      case "modify-evil-include":
        writeFileSync(join(this.ws, "evil.cfg"), `[diff]\n\texternal = ${this.program}\n`);
        writeFileSync(file, "a\nb\n");
        return;
      case "branches":
      case "conflicted": {
        this.git(dir, "checkout", "-q", "-b", "other");
        writeFileSync(file, "x\n");
        this.git(dir, "commit", "-q", "-am", "x");
        this.git(dir, "checkout", "-q", "main");
        writeFileSync(file, "y\n");
        this.git(dir, "commit", "-q", "-am", "y");
        if (what === "conflicted") this.run("git merge -q other", dir, "", this.env);
        return;
      }
      case "remote":
      case "alternates": {
        const origin = join(this.top, "origin");
        this.git(this.top, "clone", "-q", "--bare", dir, origin);
        this.git(dir, "remote", "add", "origin", origin);
        if (what === "alternates") {
          this.git(origin, "--work-tree", dir, "commit", "-q", "--allow-empty", "-m", "more");
          const alt = join(this.top, "alt");
          this.git(this.top, "clone", "-q", "--bare", dir, alt);
          writeFileSync(join(dir, ".git", "objects", "info", "alternates"), `${join(alt, "objects")}\n`);
        }
        return;
      }
      case "submodule-behind": {
        this.submodule(dir, false);
        this.git(join(dir, "sub"), "commit", "-q", "--allow-empty", "-m", "ahead");
        return;
      }
      case "remove-recurse":
        rmSync(file);
        this.git(this.ws, "config", "submodule.recurse", "true");
        return;
      case "none":
        return;
      default:
        throw new Error(`unknown prepare step ${what}`);
    }
  }

  /** Runs a command line with bash; its failure is expected often (the planted program answers garbage). */
  run(command: string, cwd: string, input: string, env: Record<string, string>): void {
    try {
      execFileSync("bash", ["-c", command], {
        cwd,
        env,
        input,
        stdio: ["pipe", "ignore", "ignore"],
        timeout: 60_000,
      });
    } catch {
      // Only whether the program ran matters.
    }
  }
}

const rows = ATTACKS.rows as unknown as Row[];
const kind = withGitConfigCheck(createCommandKind());

describe("git config attacks against real git (testdata/git-config-attacks.json)", () => {
  it.each(rows)("$note", async (row) => {
    const world = new World();
    const target = world.target(row.where);
    world.prepare(row.prepare, target);
    for (const [key, value] of Object.entries(row.config))
      world.git(
        target,
        "config",
        key,
        value.replaceAll("PROGRAM", world.program).replaceAll("HOOKS", world.hooks),
      );
    const cwd = row.cwd ? join(world.ws, row.cwd) : world.ws;

    const analysis = await kind.prepare(row.command, {
      roots: [world.ws],
      args: row.cwd ? { cwd: row.cwd } : {},
    });
    const reasons = analysis.unsafe.join("; ");
    if (row.flags === false) expect(reasons).not.toContain(row.key);
    else expect(reasons).toContain(` sets ${row.key} (`);

    if (row.runs === null) {
      expect(row.why).toBeTruthy();
      return;
    }
    // Under a terminal where the row says so: git pages and colours only there.
    const command = row.tty ? `script -qec ${JSON.stringify(row.command)} /dev/null` : row.command;
    rmSync(world.marker, { force: true });
    world.run(command, cwd, row.stdin ?? "", { ...world.env, ...SHELL_FIXED_ENV });
    expect(existsSync(world.marker), "the program ran under toolgate's switches").toBe(row.runs !== false);
    if (row.runs === false) {
      world.run(command, cwd, row.stdin ?? "", world.env);
      expect(existsSync(world.marker), "without the switches, git runs the program").toBe(true);
    }
  });

  it("every flagged key of git-hazards.json is set by a row, run against git or saying why not", () => {
    const entries = rows.flatMap((r) =>
      Object.keys(r.config).map((key) => {
        const parts = key.split(".");
        const subsection = parts.length > 2 ? parts.slice(1, -1).join(".") : undefined;
        return {
          section: parts[0]!.toLowerCase(),
          ...(subsection !== undefined ? { subsection } : {}),
          name: parts.at(-1)!.toLowerCase(),
          value: r.config[key]!,
        };
      }),
    );
    const missing = GIT_HAZARD_KEYS.filter((k) => !entries.some((e) => keyMatches(e, k))).map((k) => k.key);
    // Not set by any row: send-email is not installed here; instaweb needs gitweb.
    expect(missing).toEqual([
      "sendemail.smtpserver",
      "sendemail.tocmd",
      "sendemail.cccmd",
      "sendemail.*.smtpserver",
      "sendemail.*.sendmailcmd",
      "instaweb.browser",
    ]);
  });
});
