import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../workspace/index.js";
import { createGrepTool, findBundledRipgrep } from "../grep.js";
import { RipgrepOutputParser } from "./grep-backends.js";

/** The reference parse: the whole output as one string, split into lines (what the parser replaced). */
function reference(output: Buffer, accept: (file: string) => boolean): string[] {
  const out: string[] = [];
  const text = output.toString("utf8");
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    const nul = line.indexOf("\0");
    if (nul === -1) continue;
    const colon = line.indexOf(":", nul + 1);
    const number = line.slice(nul + 1, colon);
    if (colon === -1 || !/^\d+$/.test(number)) continue;
    const file = line.slice(0, nul);
    if (!accept(file)) continue;
    out.push(`${file}|${number}|${line.endsWith("\r") ? line.slice(colon + 1, -1) : line.slice(colon + 1)}`);
  }
  return out;
}

function parse(chunks: Buffer[], accept: (file: string) => boolean): { got: string[]; accepted: string[] } {
  const got: string[] = [];
  const accepted: string[] = [];
  const parser = new RipgrepOutputParser(
    (file) => {
      accepted.push(file);
      return accept(file);
    },
    (file, line, text) => {
      got.push(`${file}|${line}|${text}`);
      return true;
    },
  );
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return { got, accepted };
}

const OUTPUT = Buffer.from(
  [
    "/r/a.ts\x001:const a = 1;",
    "/r/a.ts\x0012:  return a; // état",
    "/r/a.ts\x0013:crlf line\r",
    "/r/secret.pem\x004:return key",
    "/r/é/b.ts\x007:日本語 return",
    "/r/é/b.ts\x008:",
    "/r/c.ts\x0099:last, no line break",
  ].join("\n"),
);

describe("RipgrepOutputParser", () => {
  const accept = (file: string) => !file.endsWith(".pem");

  it("parses what the line-splitting reference parses, keeping CRLF out and UTF-8 intact", () => {
    const { got } = parse([OUTPUT], accept);
    expect(got).toEqual(reference(OUTPUT, accept));
    expect(got).toContain("/r/é/b.ts|7|日本語 return");
    expect(got).toContain("/r/a.ts|13|crlf line");
    expect(got).toContain("/r/c.ts|99|last, no line break");
    expect(got.some((l) => l.includes("secret"))).toBe(false);
  });

  it("gives the same result wherever the output is split into chunks, even inside a character", () => {
    const want = reference(OUTPUT, accept);
    for (let cut = 0; cut <= OUTPUT.length; cut++) {
      const { got } = parse([OUTPUT.subarray(0, cut), OUTPUT.subarray(cut)], accept);
      expect({ cut, lines: got }).toEqual({ cut, lines: want });
    }
    const bytes = [...OUTPUT].map((b) => Buffer.from([b]));
    expect(parse(bytes, accept).got).toEqual(want);
  });

  it("asks about each file once, not once per match", () => {
    const { accepted } = parse([OUTPUT], accept);
    expect(accepted).toEqual(["/r/a.ts", "/r/secret.pem", "/r/é/b.ts", "/r/c.ts"]);
  });

  it("stops when told to", () => {
    const got: number[] = [];
    const parser = new RipgrepOutputParser(
      () => true,
      (_file, line) => {
        got.push(line);
        return got.length < 2;
      },
    );
    expect(parser.write(OUTPUT)).toBe(false);
    expect(got).toEqual([1, 12]);
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
