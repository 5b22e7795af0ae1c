import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../workspace/index.js";
import { createGrepTool, findBundledRipgrep } from "../grep.js";
import { RipgrepOutputParser, ripgrepArgs } from "./grep-backends.js";

interface File {
  path: string;
  lines: string[];
}

/** ripgrep's `--heading --null` output for these files: `path NUL`, `N: text LF` lines, an empty line between. */
function output(files: File[], trailing: boolean): Buffer {
  const parts = files.map((f) => `${f.path}\0${f.lines.map((l) => `${l}\n`).join("")}`);
  return Buffer.from(parts.join("\n") + (trailing ? "\n" : ""));
}

/** What the parser should give: each kept file once, its lines as one text, with their count. */
function reference(files: File[], accept: (file: string) => boolean): string[] {
  return files
    .filter((f) => accept(f.path))
    .map((f) => `${f.path}|${f.lines.length}|${f.lines.map((l) => `${l}\n`).join("")}`);
}

function parse(chunks: Buffer[], accept: (file: string) => boolean): { got: string[]; accepted: string[] } {
  const got: string[] = [];
  const accepted: string[] = [];
  const parser = new RipgrepOutputParser(
    (file) => {
      accepted.push(file);
      return accept(file);
    },
    (file, body, count) => {
      got.push(`${file}|${count}|${body.toString("utf8")}`);
      return true;
    },
  );
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return { got, accepted };
}

const FILES: File[] = [
  { path: "/r/a.ts", lines: ["1: const a = 1;", "12:   return a; // état", "13: crlf line\r"] },
  { path: "/r/secret.pem", lines: ["4: return key"] },
  // A path may hold line feeds, even two in a row: the heading is read up to its NUL.
  { path: "/r/odd\n\nname.ts", lines: ["3: x"] },
  { path: "/r/é/b.ts", lines: ["7: 日本語 return", "8: "] },
  { path: "/r/c.ts", lines: ["99: last"] },
];

describe("RipgrepOutputParser", () => {
  const accept = (file: string) => !file.endsWith(".pem");

  for (const trailing of [false, true]) {
    it(`gives each kept file's lines as one text, counted (a line feed after the last line: ${trailing})`, () => {
      const { got } = parse([output(FILES, trailing)], accept);
      expect(got).toEqual(reference(FILES, accept));
    });

    it(`gives the same result wherever the output is split into chunks, even inside a character (${trailing})`, () => {
      const bytes = output(FILES, trailing);
      const want = reference(FILES, accept);
      for (let cut = 0; cut <= bytes.length; cut++) {
        for (const second of [cut, Math.min(bytes.length, cut + 1), Math.min(bytes.length, cut + 2)]) {
          const chunks = [bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)];
          expect({ cut, second, files: parse(chunks, accept).got }).toEqual({ cut, second, files: want });
        }
      }
      expect(
        parse(
          [...bytes].map((b) => Buffer.from([b])),
          accept,
        ).got,
      ).toEqual(want);
    });
  }

  it("asks about each file once, not once per match", () => {
    const { accepted } = parse([output(FILES, false)], accept);
    expect(accepted).toEqual(FILES.map((f) => f.path));
  });

  it("stops when told to", () => {
    const got: string[] = [];
    const parser = new RipgrepOutputParser(
      () => true,
      (file) => {
        got.push(file);
        return got.length < 2;
      },
    );
    expect(parser.write(output(FILES, false))).toBe(false);
    expect(got).toEqual(["/r/a.ts", "/r/secret.pem"]);
  });

  it("stops at the limit, within a file too, giving the lines so far", () => {
    for (const [limit, want] of [
      [2, ["/r/a.ts|2|1: const a = 1;\n12:   return a; // état\n"]],
      [3, [reference(FILES, accept)[0]]],
      [4, [...reference(FILES, accept).slice(0, 2)]],
    ] as const) {
      const bytes = output(FILES, false);
      for (const cut of [0, 20, 47, bytes.length]) {
        const got: string[] = [];
        const parser = new RipgrepOutputParser(
          accept,
          (file, body, count) => {
            got.push(`${file}|${count}|${body.toString("utf8")}`);
            return true;
          },
          limit,
        );
        const first = parser.write(bytes.subarray(0, cut));
        const second = first && parser.write(bytes.subarray(cut));
        expect({ limit, cut, stopped: !second, got }).toEqual({ limit, cut, stopped: true, got: want });
      }
    }
  });

  it("reads ripgrep's own output for files with CRLF, UTF-8 and an empty matching line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-grep-rg-"));
    try {
      await writeFile(join(dir, "a.txt"), "x\r\nreturn 1\r\nreturn é\n");
      await writeFile(join(dir, "b.txt"), "\n\nreturn\n");
      const rg = (await findBundledRipgrep())!;
      const { execFileSync } = await import("node:child_process");
      const bytes = execFileSync(rg, [
        ...ripgrepArgs({ pattern: "return", caseSensitive: true, includeHidden: false, target: dir }),
      ]);
      const { got } = parse([bytes], () => true);
      expect(got.sort()).toEqual([
        `${dir}/a.txt|2|2: return 1\r\n3: return é\n`,
        `${dir}/b.txt|1|3: return\n`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("grep output, ripgrep against the JS search, on thousands of matches", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tg-grep-equal-"));
    await writeFile(join(dir, ".gitignore"), "build/\n");
    for (let f = 0; f < 60; f++) {
      const folder = join(dir, f % 10 === 0 ? "build" : `src/m${f % 7}`);
      await mkdir(folder, { recursive: true });
      const lines = Array.from({ length: 120 }, (_, i) =>
        i % 3 === 0 ? `  return value${i}; // ü ${f}` : `const x${i} = ${i};${i % 5 === 0 ? "\r" : ""}`,
      );
      await writeFile(join(folder, `file${f}.ts`), `${lines.join("\n")}${f % 2 ? "\n" : ""}`);
    }
    await mkdir(join(dir, "certs"));
    await writeFile(join(dir, "certs", "dev.pem"), "return secret\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints the same lines, sorted, with secrets and ignored files left out", async () => {
    const rg = await findBundledRipgrep();
    expect(rg).not.toBeNull();
    const workspace = await Workspace.create([dir]);
    const params = { pattern: "return", maxMatches: 100_000 };
    const signal = new AbortController().signal;
    const withRg = await createGrepTool({ workspace, ripgrepPath: rg }).build(params).run(signal);
    const withJs = await createGrepTool({ workspace, ripgrepPath: null }).build(params).run(signal);
    expect(withRg.llmContent).toBe(withJs.llmContent);
    expect(withRg.returnDisplay).toBe(withJs.returnDisplay);
    const lines = withRg.llmContent.split("\n");
    expect(lines).toHaveLength(54 * 40);
    expect(lines[0]).toBe("src/m0/file14.ts:1:   return value0; // ü 14");
    expect(withRg.llmContent).not.toContain("dev.pem");
    expect(withRg.llmContent).not.toContain("build/");
  });
});
