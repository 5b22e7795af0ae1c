import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createReadFileTool, type ReadFileParams } from "./read-file.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createReadFileTool>;
const run = (params: ReadFileParams) => tool.build(params).run(new AbortController().signal);
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-read-")));
  root = join(base, "proj");
  await mkdir(join(root, "dir"), { recursive: true });
  await writeFile(join(root, "ten.txt"), lines(10));
  await writeFile(join(root, "no-final-newline.txt"), "a\nb");
  await writeFile(join(root, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
  await writeFile(join(root, "big.txt"), "x".repeat(2000));
  await writeFile(
    join(root, "image.png"),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  );
  await writeFile(
    join(root, "utf16.txt"),
    Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("héllo\nwörld\n", "utf-16le")]),
  );
  await writeFile(join(root, "latin1.txt"), Buffer.from("café crème brûlée à la carte\n", "latin1"));
  await writeFile(join(base, "secret.txt"), "secret\n");
  await symlink(join(base, "secret.txt"), join(root, "leak.txt"));
  const ws = await Workspace.create([root], { maxFileBytes: 1000 });
  tool = createReadFileTool({ workspace: ws });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("read_file", () => {
  it("declares itself as a low-risk read tool with a path argument", () => {
    expect(tool.name).toBe("read_file");
    expect(tool.kind).toBe("read");
    expect(tool.risk).toBe("low");
    expect(tool.argKinds).toEqual({ path: "path" });
    expect(tool.build({ path: "ten.txt" }).locations()).toEqual([join(root, "ten.txt")]);
    expect(tool.build({ path: ".env" }).riskFor()).toBe("medium");
  });

  it("returns the complete contents and reports the encoding", async () => {
    const result = await run({ path: "ten.txt" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe(lines(10));
    expect(result.data).toMatchObject({ encoding: "utf-8", bom: false, totalLines: 10, lineEnding: "lf" });
  });

  it("startLine reads to the end", async () => {
    expect((await run({ path: "ten.txt", startLine: 8 })).llmContent).toBe("line 8\nline 9\nline 10\n");
    expect((await run({ path: "no-final-newline.txt", startLine: 2 })).llmContent).toBe("b");
  });

  it("endLine reads from the start", async () => {
    expect((await run({ path: "ten.txt", endLine: 2 })).llmContent).toBe("line 1\nline 2\n");
  });

  it("both read the inclusive range; beyond the end is clipped", async () => {
    const result = await run({ path: "ten.txt", startLine: 3, endLine: 4 });
    expect(result.llmContent).toBe("line 3\nline 4\n");
    expect(result.data).toMatchObject({ startLine: 3, endLine: 4 });
    expect((await run({ path: "ten.txt", startLine: 10, endLine: 99 })).llmContent).toBe("line 10\n");
    expect((await run({ path: "ten.txt", startLine: 5, endLine: 5 })).llmContent).toBe("line 5\n");
  });

  it("refuses startLine > endLine and a start past the end", async () => {
    expect(() => tool.build({ path: "ten.txt", startLine: 5, endLine: 4 })).toThrow(
      "startLine (5) must not be greater than endLine (4)",
    );
    const result = await run({ path: "ten.txt", startLine: 11 });
    expect(result.error).toEqual({
      type: "invalid_params",
      message: "startLine 11 is beyond the end of ten.txt (10 lines)",
      details: { path: "ten.txt" },
    });
  });

  it("a missing file is file_not_found naming the path", async () => {
    const result = await run({ path: "nope/missing.txt" });
    expect(result.error?.type).toBe("file_not_found");
    expect(result.error?.message).toBe("file not found: nope/missing.txt");
    expect(result.error?.details?.path).toBe("nope/missing.txt");
  });

  it("a file over the limit is file_too_large with size and limit; a range still works", async () => {
    const result = await run({ path: "big.txt" });
    expect(result.error?.type).toBe("file_too_large");
    expect(result.error?.message).toBe(
      'file "big.txt" is too large: 2000 bytes, limit 1000 bytes; read a range with startLine and endLine',
    );
    expect((await run({ path: "big.txt", startLine: 1, endLine: 1 })).error?.type).toBe("file_too_large");
  });

  it("describes a binary file instead of dumping it", async () => {
    const result = await run({ path: "image.png" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe("image.png is a binary file (PNG image, 12 B); its content is not shown.");
  });

  it("decodes UTF-16 with BOM, Latin-1 and CRLF and reports them", async () => {
    const utf16 = await run({ path: "utf16.txt" });
    expect(utf16.llmContent).toBe("héllo\nwörld\n");
    expect(utf16.data).toMatchObject({ encoding: "utf-16le", bom: true });
    expect(utf16.returnDisplay).toBe("Read utf16.txt (2 lines, utf-16le with BOM, LF)");
    expect((await run({ path: "utf16.txt", startLine: 2 })).llmContent).toBe("wörld\n");
    const latin1 = await run({ path: "latin1.txt" });
    expect(latin1.llmContent).toBe("café crème brûlée à la carte\n");
    expect(latin1.data).toMatchObject({ encoding: "iso-8859-1" });
    const crlf = await run({ path: "crlf.txt", startLine: 2, endLine: 2 });
    expect(crlf.llmContent).toBe("two\r\n");
    expect((await run({ path: "crlf.txt" })).data).toMatchObject({ lineEnding: "crlf" });
  });

  it("refuses paths outside the root, through symlinks too, and directories", async () => {
    for (const path of ["../secret.txt", "leak.txt", `${base}/secret.txt`, "ten.txt\0"]) {
      const result = await run({ path });
      expect(result.error?.type).toBe("path_not_allowed");
      expect(result.llmContent).not.toContain("secret\n");
    }
    const dir = await run({ path: "dir" });
    expect(dir.error?.message).toBe('path "dir" is a directory; use ls to list it');
  });
});
