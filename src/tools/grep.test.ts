import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import type { FileMatches } from "./files/grep-backends.js";
import { createGrepTool, findBundledRipgrep, type GrepParams, sortFiles } from "./grep.js";

let base: string;
let root: string;
let rg: ReturnType<typeof createGrepTool>;
let js: ReturnType<typeof createGrepTool>;
const signal = new AbortController().signal;

const corpus: Record<string, string | Buffer> = {
  ".gitignore": "ignored/\n*.log\n",
  ".git/info/exclude": "excluded.txt\n",
  ".git/config": "needle in git config\n",
  "src/a.ts": "const needle = 1;\nconst other = 2;\n// NEEDLE upper\n",
  "src/b.js": "function needle() {}\n",
  "src/nested/.gitignore": "gen.ts\n",
  "src/nested/gen.ts": "needle generated\n",
  "src/nested/c.ts": "no match here\nNeedle mixed\n",
  "src/.hidden.ts": "needle hidden\n",
  ".secret/d.ts": "needle hidden folder\n",
  "ignored/e.ts": "needle ignored\n",
  "app.log": "needle log\n",
  "excluded.txt": "needle excluded\n",
  "crlf.txt": "needle crlf\r\nsecond\r\nneedle again\r\n",
  "bom8.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("needle bom\n")]),
  "utf16.txt": Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    iconv.encode("needle utf16\nline two\n", "utf-16le"),
  ]),
  "binary.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2, 3]), Buffer.from("needle\n")]),
  "unicode.txt": "Grüße needle ünïcödé\n",
  "dash.txt": "-v is a flag\n--regexp too\n",
  // Texts of 600 ASCII characters (cut), 400 two-byte ones (more than 500 bytes, not cut), 504 three-byte
  // ones (cut) and exactly 500 (not cut).
  // More matching lines than a search collects (20,000), all in one file.
  "many.txt": "manyline\n".repeat(25_000),
  "long.txt": `longline ${"x".repeat(591)}\nlongline ${"é".repeat(391)}\nlongline ${"日".repeat(495)}\r\nlongline ${"y".repeat(491)}\n`,
  "keys/deploy.pem": "-----BEGIN PRIVATE KEY----- secretneedle\n",
  ".env": "TOKEN=secretneedle\n",
};

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-grep-")));
  root = join(base, "proj");
  for (const [path, content] of Object.entries(corpus)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await writeFile(join(base, "outside.txt"), "needle outside\n");
  await symlink(join(base, "outside.txt"), join(root, "link.txt"));
  await symlink(base, join(root, "up"));
  const workspace = await Workspace.create([root]);
  const rgPath = await findBundledRipgrep();
  expect(rgPath).toBeTruthy();
  rg = createGrepTool({ workspace, ripgrepPath: rgPath });
  js = createGrepTool({ workspace, ripgrepPath: null });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function both(params: GrepParams) {
  const [a, b] = await Promise.all([rg.build(params).run(signal), js.build(params).run(signal)]);
  expect((a.data as { backend: string }).backend).toBe("ripgrep");
  expect((b.data as { backend: string }).backend).toBe("js");
  expect(b.llmContent).toBe(a.llmContent);
  return a.llmContent;
}

describe("grep (ripgrep and JS fallback give identical results)", () => {
  it("finds lines with path and number, case-insensitive by default, skipping ignored, hidden, binary, symlinks", async () => {
    expect(await both({ pattern: "needle" })).toBe(
      [
        "bom8.txt:1: needle bom",
        "crlf.txt:1: needle crlf",
        "crlf.txt:3: needle again",
        "src/a.ts:1: const needle = 1;",
        "src/a.ts:3: // NEEDLE upper",
        "src/b.js:1: function needle() {}",
        "src/nested/c.ts:2: Needle mixed",
        "unicode.txt:1: Grüße needle ünïcödé",
        "utf16.txt:1: needle utf16",
      ].join("\n"),
    );
  });

  it("caseSensitive true matches case exactly", async () => {
    expect(await both({ pattern: "NEEDLE", caseSensitive: true })).toBe("src/a.ts:3: // NEEDLE upper");
    expect(await both({ pattern: "grüsse|GRÜSSE", caseSensitive: true })).toBe(
      "No matches for /grüsse|GRÜSSE/ in .",
    );
    expect(await both({ pattern: "GRÜ" })).toBe("unicode.txt:1: Grüße needle ünïcödé");
    expect(await both({ pattern: "ÜNÏCÖDÉ", caseSensitive: true })).toBe("No matches for /ÜNÏCÖDÉ/ in .");
  });

  it("filePattern limits the files, by name or by path, without un-ignoring anything", async () => {
    expect(await both({ pattern: "needle", filePattern: "*.ts" })).toBe(
      [
        "src/a.ts:1: const needle = 1;",
        "src/a.ts:3: // NEEDLE upper",
        "src/nested/c.ts:2: Needle mixed",
      ].join("\n"),
    );
    expect(await both({ pattern: "needle", filePattern: "src/*.js" })).toBe(
      "src/b.js:1: function needle() {}",
    );
    expect(await both({ pattern: "needle", filePattern: "*.log" })).toBe("No matches for /needle/ in .");
  });

  it("searches a sub-folder or a single file, and hidden files on request (never .git)", async () => {
    expect(await both({ pattern: "needle", path: "src/nested" })).toBe("src/nested/c.ts:2: Needle mixed");
    expect(await both({ pattern: "needle", path: "crlf.txt" })).toBe(
      "crlf.txt:1: needle crlf\ncrlf.txt:3: needle again",
    );
    const hidden = await both({ pattern: "hidden", includeHidden: true });
    expect(hidden).toBe(".secret/d.ts:1: needle hidden folder\nsrc/.hidden.ts:1: needle hidden");
    expect(await both({ pattern: "git config", includeHidden: true })).toBe(
      "No matches for /git config/ in .",
    );
  });

  it("never reads files that may hold secrets when searching a folder; naming one searches it", async () => {
    expect(await both({ pattern: "secretneedle", includeHidden: true })).toBe(
      "No matches for /secretneedle/ in .",
    );
    expect(await both({ pattern: "secretneedle", path: "keys/deploy.pem" })).toBe(
      "keys/deploy.pem:1: -----BEGIN PRIVATE KEY----- secretneedle",
    );
  });

  it("passes patterns that look like flags as patterns", async () => {
    expect(await both({ pattern: "-v" })).toBe("dash.txt:1: -v is a flag");
    expect(await both({ pattern: "--regexp" })).toBe("dash.txt:2: --regexp too");
  });

  it("cuts texts longer than 500 characters, identically", async () => {
    expect((await both({ pattern: "longline" })).split("\n")).toEqual([
      `long.txt:1: longline ${"x".repeat(491)}…`,
      `long.txt:2: longline ${"é".repeat(391)}`,
      `long.txt:3: longline ${"日".repeat(491)}…`,
      `long.txt:4: longline ${"y".repeat(491)}`,
    ]);
  });

  it("stops collecting at 20,000 matches, within one file too, identically", async () => {
    const text = await both({ pattern: "manyline", maxMatches: 3 });
    expect(text).toBe(
      [
        "many.txt:1: manyline",
        "many.txt:2: manyline",
        "many.txt:3: manyline",
        "(search stopped after 20000 matches; narrow the pattern, path or filePattern)",
        "(19997 more matches not shown; limit 3, set maxMatches to see more)",
      ].join("\n"),
    );
  });

  it("caps matches with a note, identically", async () => {
    expect(await both({ pattern: "needle", maxMatches: 2 })).toBe(
      "bom8.txt:1: needle bom\ncrlf.txt:1: needle crlf\n(7 more matches not shown; limit 2, set maxMatches to see more)",
    );
  });

  it("refuses patterns JS cannot compile and paths outside the root", async () => {
    expect(() => rg.build({ pattern: "(unclosed" })).toThrow('invalid regular expression "(unclosed"');
    for (const path of ["..", "up", "link.txt", "/etc"]) {
      expect((await rg.build({ pattern: "needle", path }).run(signal)).error?.type, path).toBe(
        "path_not_allowed",
      );
    }
  });

  it("stops a search that never ends (a .gitignore that is a FIFO) with a timeout error", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-grep-fifo-")));
    try {
      await writeFile(join(dir, "a.txt"), "needle\n");
      execFileSync("mkfifo", [join(dir, ".gitignore")]);
      const workspace = await Workspace.create([dir]);
      const tool = createGrepTool({ workspace, ripgrepPath: await findBundledRipgrep(), timeoutMs: 1000 });
      const result = await tool.build({ pattern: "needle" }).run(signal);
      expect(result.error?.type).toBe("timeout");
      expect(result.error?.message).toMatch(/^grep timed out after \d+ ms; narrow the path or filePattern$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("grep: ordering files by path", () => {
  it("gives the order a full sort of the lines gives, a file met twice merged in line order", () => {
    const files = ["b/x.ts", "a.ts", "a/b.ts", "B.ts", "a-b.ts", "é.ts"];
    const input: FileMatches[] = files.map((file) => ({
      file,
      count: 3,
      body: Buffer.from([1, 2, 3].map((line) => `${line}: ${file}${line}\n`).join("")),
    }));
    input.push({ file: "a.ts", count: 2, body: Buffer.from("9: late\n2: between\n") });
    const lines = (list: FileMatches[]) =>
      list.flatMap((f) =>
        f.body
          .toString("utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => `${f.file}|${l}`),
      );
    const reference = lines(input).sort((p, q) => {
      const [pf, pl] = p.split("|") as [string, string];
      const [qf, ql] = q.split("|") as [string, string];
      return pf === qf ? Number.parseInt(pl, 10) - Number.parseInt(ql, 10) : pf < qf ? -1 : pf > qf ? 1 : 0;
    });
    const sorted = sortFiles(input);
    expect(lines(sorted)).toEqual(reference);
    expect(sorted.find((f) => f.file === "a.ts")?.count).toBe(5);
  });
});
