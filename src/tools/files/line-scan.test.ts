import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../../workspace/index.js";
import { createReadFileTool } from "../read-file.js";
import { canScanBytes } from "./line-scan.js";

/** The reference: the whole text decoded at once, split into lines that keep their line breaks. */
function referenceLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function encode(text: string, encoding: "utf-8" | "utf-8-bom" | "utf-16le" | "utf-16be"): Buffer {
  if (encoding === "utf-8") return Buffer.from(text, "utf8");
  if (encoding === "utf-8-bom") return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const le = Buffer.from(text, "utf16le");
  if (encoding === "utf-16le") return Buffer.concat([Buffer.from([0xff, 0xfe]), le]);
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]);
}

/** About 2.6 MB of lines of varied length (some longer than 64 KB), so lines straddle 1 MB chunk edges. */
function bigText(eol: string, trailing: boolean): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < 2_600_000; i++) {
    const body = i % 97 === 0 ? "é".repeat(40_000) : `${i} ${"ab日".repeat(i % 50)}`;
    lines.push(body);
    size += body.length + eol.length;
  }
  return lines.join(eol) + (trailing ? eol : "");
}

/** The text with a last line of one or two bytes, so its UTF-8 size is odd. */
function oddSized(text: string): string {
  return Buffer.byteLength(text) % 2 === 0 ? `${text}z` : `${text}zz`;
}

/** The lines (1-based) just before, at and after each 1 MiB offset of a UTF-8 file. */
function chunkEdgeLines(bytes: Buffer, encoding: string): number[] {
  if (!encoding.startsWith("utf-8")) return [];
  const out: number[] = [];
  for (let edge = 1 << 20; edge < bytes.length; edge += 1 << 20) {
    let line = 1;
    for (let i = bytes.indexOf(10); i !== -1 && i < edge; i = bytes.indexOf(10, i + 1)) line++;
    out.push(line - 2, line - 1, line, line + 1);
  }
  return out;
}

const CASES = [
  { name: "lf.txt", text: bigText("\n", true), encoding: "utf-8" },
  { name: "crlf-no-trailing.txt", text: bigText("\r\n", false), encoding: "utf-8" },
  { name: "bom.txt", text: "first\nsecond\r\nthird", encoding: "utf-8-bom" },
  { name: "utf16le.txt", text: bigText("\r\n", true), encoding: "utf-16le" },
  { name: "utf16be.txt", text: bigText("\n", false), encoding: "utf-16be" },
  { name: "small16le.txt", text: "ä\n\u0a0a\nlast", encoding: "utf-16le" },
  { name: "small16be.txt", text: "\u0a00\n\u000a\n", encoding: "utf-16be" },
  { name: "empty-lines.txt", text: "\n\n\nx\n\n", encoding: "utf-8" },
  { name: "one.txt", text: "only line", encoding: "utf-8" },
  // A CRLF line break whose CR ends the backward scan's first 16 KB chunk and whose LF starts the file's end.
  { name: "crlf-edge.txt", text: `${"x\r\n".repeat(9000)}${"y".repeat(16_383)}\r\nlast`, encoding: "utf-8" },
  {
    name: "crlf-edge16.txt",
    text: `${"x\r\n".repeat(9000)}${"y".repeat(8191)}\r\nlast`,
    encoding: "utf-16le",
  },
  // An odd size: the backward scan's chunks must still start at even offsets and fit their buffer.
  { name: "odd-size.txt", text: oddSized(bigText("\n", true)), encoding: "utf-8" },
] as const;

let dir: string;
let read: ReturnType<typeof createReadFileTool>;
const signal = new AbortController().signal;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-line-scan-"));
  for (const c of CASES) await writeFile(join(dir, c.name), encode(c.text, c.encoding));
  expect(encode(CASES.find((c) => c.name === "odd-size.txt")!.text, "utf-8").length % 2).toBe(1);
  read = createReadFileTool({ workspace: await Workspace.create([dir], { maxFileBytes: 50_000_000 }) });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function text(params: { path: string; startLine?: number; endLine?: number; tail?: number }) {
  const result = await read.build(params).run(signal);
  if (result.error) throw new Error(result.llmContent);
  return result.llmContent;
}

describe("read_file ranges found on bytes give the lines a whole-file decode gives", () => {
  for (const c of CASES) {
    it(`${c.name}: ranges at the start, across chunk edges, at the end and past it`, async () => {
      const lines = referenceLines(c.text);
      const n = lines.length;
      // Also the lines around each 1 MiB chunk edge, where the forward scan reads its next chunk.
      const edges = chunkEdgeLines(encode(c.text, c.encoding), c.encoding);
      const picks = new Set(
        [1, 2, Math.floor(n / 3), Math.floor(n / 2), n - 1, n, ...edges].filter((x) => x >= 1 && x <= n),
      );
      for (const first of picks) {
        for (const span of [0, 1, 5, 300]) {
          const last = first + span;
          expect({ first, last, got: await text({ path: c.name, startLine: first, endLine: last }) }).toEqual(
            {
              first,
              last,
              got: lines.slice(first - 1, last).join(""),
            },
          );
        }
        expect(await text({ path: c.name, startLine: first })).toBe(lines.slice(first - 1).join(""));
      }
      const past = await read.build({ path: c.name, startLine: n + 1 }).run(signal);
      expect(past.error?.type).toBe("invalid_params");
      expect(past.llmContent).toContain("beyond the end");
    });

    it(`${c.name}: the last lines, by scanning backwards`, async () => {
      const lines = referenceLines(c.text);
      // Counts whose lines end in the first 16 KB chunk, in a doubled one, and past the 1 MB cap.
      for (const count of [1, 2, 3, 20, 150, 400, 1000, 5000, lines.length, lines.length + 5]) {
        expect({ count, got: await text({ path: c.name, tail: count }) }).toEqual({
          count,
          got: lines.slice(Math.max(0, lines.length - count)).join(""),
        });
      }
    });
  }

  it("refuses tail together with a line range, and knows which encodings it cannot scan", async () => {
    expect(() => read.build({ path: "one.txt", tail: 2, startLine: 1 })).toThrow(
      "tail reads the last lines; it cannot be combined with startLine or endLine",
    );
    expect(canScanBytes("utf-8")).toBe(true);
    expect(canScanBytes("shift_jis")).toBe(true);
    expect(canScanBytes("iso-2022-jp")).toBe(false);
    expect(canScanBytes("utf-7")).toBe(false);
  });

  it("reports a tail's size in the summary", async () => {
    const result = await read.build({ path: "bom.txt", tail: 2 }).run(signal);
    expect(result.returnDisplay).toBe("Read the last 2 lines of bom.txt (utf-8 with BOM)");
    expect(result.data).toMatchObject({ tail: 2, lines: 2 });
  });
});
