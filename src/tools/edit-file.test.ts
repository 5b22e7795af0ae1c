import { link, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import iconv from "iconv-lite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createEditFileTool, type EditFileParams } from "./edit-file.js";
import { createReadFileTool } from "./read-file.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createEditFileTool>;
let reader: ReturnType<typeof createReadFileTool>;
const signal = new AbortController().signal;
const run = (params: EditFileParams) => tool.build(params).run(signal);
const read = (path: string) => reader.build({ path }).run(signal);

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-edit-")));
  root = join(base, "proj");
  await mkdir(root);
  await writeFile(join(base, "outside.txt"), "alpha\n");
  const workspace = await Workspace.create([root]);
  tool = createEditFileTool({ workspace });
  reader = createReadFileTool({ workspace });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("edit_file", () => {
  it("applies all edits in order", async () => {
    await writeFile(join(root, "a.ts"), "const a = 1;\nconst b = 2;\n");
    const result = await run({
      path: "a.ts",
      edits: [
        { oldText: "a = 1", newText: "a = 10" },
        { oldText: "b = 2", newText: "b = a" },
      ],
    });
    expect(result.llmContent).toBe("Edited a.ts: 2 edits, 2 replacements (utf-8, LF)");
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe("const a = 10;\nconst b = a;\n");
  });

  it("names the edit that was not found and writes nothing (all or none)", async () => {
    await writeFile(join(root, "a.ts"), "x = 1\ny = 2\n");
    const result = await run({
      path: "a.ts",
      edits: [
        { oldText: "x = 1", newText: "x = 3" },
        { oldText: "z = 9\nmore", newText: "" },
      ],
    });
    expect(result.error?.type).toBe("edit_failed");
    expect(result.error?.message).toBe(
      'edit 2 of 2 failed: oldText not found in a.ts: "z = 9\\nmore" (edits apply in order, each to the result of the previous ones)',
    );
    expect(result.error?.details).toEqual({ path: "a.ts", edit: 2 });
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe("x = 1\ny = 2\n");
  });

  it("says how many matches an ambiguous edit has, unless expectedReplacements says so", async () => {
    await writeFile(join(root, "a.ts"), "foo\nfoo\nfoo\n");
    const result = await run({ path: "a.ts", edits: [{ oldText: "foo", newText: "bar" }] });
    expect(result.error?.message).toBe(
      'edit 1 of 1 failed: oldText matches 3 times in a.ts but 1 replacement was expected: "foo"; include more surrounding text to make it unique, or set expectedReplacements to 3',
    );
    const wrong = await run({
      path: "a.ts",
      edits: [{ oldText: "foo", newText: "bar", expectedReplacements: 2 }],
    });
    expect(wrong.error?.message).toBe(
      'edit 1 of 1 failed: oldText matches 3 times in a.ts but 2 replacements were expected: "foo"',
    );
    const ok = await run({
      path: "a.ts",
      edits: [{ oldText: "foo", newText: "$&bar", expectedReplacements: 3 }],
    });
    expect(ok.error).toBeUndefined();
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe("$&bar\n$&bar\n$&bar\n");
  });

  it("refuses a missing file, empty oldText, outside and protected paths, hard links", async () => {
    expect((await run({ path: "missing.ts", edits: [{ oldText: "a", newText: "b" }] })).error?.message).toBe(
      "file not found: missing.ts",
    );
    expect(() => tool.build({ path: "a", edits: [{ oldText: "", newText: "b" }] })).toThrow(
      "parameter 'edits[0].oldText' must have at least 1 characters",
    );
    await link(join(base, "outside.txt"), join(root, "hard.txt"));
    await writeFile(join(root, ".env"), "KEY=1\n");
    for (const path of ["../outside.txt", "hard.txt", ".env", ".ENV"]) {
      const result = await run({ path, edits: [{ oldText: "alpha", newText: "pwned" }] });
      expect(result.error?.type, path).toBe("path_not_allowed");
    }
    expect(await readFile(join(base, "outside.txt"), "utf8")).toBe("alpha\n");
  });

  // Encodings survive read → edit → read byte-exactly, except for the edit.
  const encodings: [string, (text: string) => Buffer][] = [
    ["UTF-8 with BOM", (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)])],
    ["UTF-16LE with BOM", (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(t, "utf-16le")])],
    ["UTF-16BE with BOM", (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(t, "utf-16be")])],
    ["Latin-1", (t) => Buffer.from(t, "latin1")],
    ["UTF-8 CRLF", (t) => Buffer.from(t.replace(/\n/g, "\r\n"))],
    ["Latin-1 CRLF", (t) => Buffer.from(t.replace(/\n/g, "\r\n"), "latin1")],
    [
      "UTF-16LE CRLF",
      (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(t.replace(/\n/g, "\r\n"), "utf-16le")]),
    ],
  ];
  it.each(encodings)("%s survives read → edit → read", async (_name, encode) => {
    const before = "Première ligne, café crème\nseconde ligne à éditer\ntroisième ligne\n";
    const after = "Première ligne, café crème\nseconde ligne éditée\ntroisième ligne\n";
    await writeFile(join(root, "f.txt"), encode(before));
    expect((await read("f.txt")).llmContent.replace(/\r\n/g, "\n")).toBe(before);
    const result = await run({
      path: "f.txt",
      edits: [{ oldText: "seconde ligne à éditer\n", newText: "seconde ligne éditée\n" }],
    });
    expect(result.error).toBeUndefined();
    expect((await readFile(join(root, "f.txt"))).equals(encode(after))).toBe(true);
    expect((await read("f.txt")).llmContent.replace(/\r\n/g, "\n")).toBe(after);
  });

  it("matches CRLF oldText in a CRLF file too", async () => {
    await writeFile(join(root, "c.txt"), "a\r\nb\r\n");
    await run({ path: "c.txt", edits: [{ oldText: "a\r\nb", newText: "x\ny" }] });
    expect(await readFile(join(root, "c.txt"), "utf8")).toBe("x\r\ny\r\n");
  });

  it("leaves a mixed-ending file's other lines untouched", async () => {
    await writeFile(join(root, "m.txt"), "a\r\nb\nc\r\n");
    await run({ path: "m.txt", edits: [{ oldText: "b", newText: "B" }] });
    expect(await readFile(join(root, "m.txt"), "utf8")).toBe("a\r\nB\nc\r\n");
  });

  it("shows a unified diff in the confirmation details", async () => {
    await writeFile(join(root, "d.txt"), "one\r\ntwo\r\n");
    const details = await tool
      .build({ path: "d.txt", edits: [{ oldText: "two", newText: "2" }] })
      .confirmation(signal);
    expect(details !== false && details.diff).toContain("-two\n+2\n");
    expect(details !== false && details.risk).toBe("medium");
  });
});
