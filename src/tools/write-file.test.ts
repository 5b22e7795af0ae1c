import {
  chmod,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import iconv from "iconv-lite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createWriteFileTool, type WriteFileParams } from "./write-file.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createWriteFileTool>;
const signal = new AbortController().signal;
const run = (params: WriteFileParams) => tool.build(params).run(signal);

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-write-")));
  root = join(base, "proj");
  await mkdir(join(root, ".git"), { recursive: true });
  await mkdir(join(base, "evil"));
  await writeFile(join(base, "outside.txt"), "outside\n");
  tool = createWriteFileTool({ workspace: await Workspace.create([root]) });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("write_file", () => {
  it("declares a medium-risk edit tool", () => {
    expect([tool.name, tool.kind, tool.risk]).toEqual(["write_file", "edit", "medium"]);
    expect(tool.build({ path: "a.txt", content: "" }).locations()).toEqual([join(root, "a.txt")]);
  });

  it("creates a new file; creates missing parents", async () => {
    const result = await run({ path: "a/b/new.txt", content: "hello\n" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe("Created a/b/new.txt (6 B, utf-8, LF)");
    expect(await readFile(join(root, "a/b/new.txt"), "utf8")).toBe("hello\n");
  });

  it("refuses an existing file without overwrite", async () => {
    await writeFile(join(root, "x.txt"), "old");
    const result = await run({ path: "x.txt", content: "new" });
    expect(result.error).toEqual({
      type: "file_exists",
      message: "file already exists: x.txt (set overwrite to true to replace it)",
      details: { path: "x.txt" },
    });
    expect(await readFile(join(root, "x.txt"), "utf8")).toBe("old");
  });

  it("replaces with overwrite, keeping mode, encoding, BOM and CRLF", async () => {
    const bom = Buffer.from([0xff, 0xfe]);
    await writeFile(join(root, "w.txt"), Buffer.concat([bom, iconv.encode("old\r\nfile\r\n", "utf-16le")]));
    await chmod(join(root, "w.txt"), 0o640);
    const result = await run({ path: "w.txt", content: "new\ncontent\n", overwrite: true });
    expect(result.llmContent).toBe("Overwrote w.txt (30 B, utf-16le with BOM, CRLF)");
    const bytes = await readFile(join(root, "w.txt"));
    expect(bytes.equals(Buffer.concat([bom, iconv.encode("new\r\ncontent\r\n", "utf-16le")]))).toBe(true);
    expect((await stat(join(root, "w.txt"))).mode & 0o777).toBe(0o640);
  });

  it("keeps Latin-1 and falls back to UTF-8 (saying so) for text Latin-1 cannot hold", async () => {
    await writeFile(join(root, "l.txt"), Buffer.from("café crème\n", "latin1"));
    await run({ path: "l.txt", content: "thé glacé\n", overwrite: true });
    expect((await readFile(join(root, "l.txt"))).equals(Buffer.from("thé glacé\n", "latin1"))).toBe(true);
    const result = await run({ path: "l.txt", content: "snow ☃\n", overwrite: true });
    expect(result.llmContent).toBe(
      "Overwrote l.txt (9 B, utf-8, LF); the content cannot be stored as iso-8859-1, so it was written as UTF-8",
    );
    expect(await readFile(join(root, "l.txt"), "utf8")).toBe("snow ☃\n");
  });

  it("refuses paths outside the root and protected paths, writing nothing", async () => {
    await symlink(join(base, "evil"), join(root, "dir-out"));
    await symlink(join(base, "outside.txt"), join(root, "link-out"));
    await symlink(join(base, "made-by-attack.txt"), join(root, "dangle"));
    await link(join(base, "outside.txt"), join(root, "hard.txt"));
    const cases: [string, string][] = [
      ["../evil/x.txt", "path_not_allowed"],
      [`${base}/evil/x.txt`, "path_not_allowed"],
      ["dir-out/x.txt", "path_not_allowed"],
      ["link-out", "path_not_allowed"],
      ["dangle", "path_not_allowed"],
      ["hard.txt", "path_not_allowed"],
      [".git/hooks/pre-commit", "path_not_allowed"],
      [".GIT/config", "path_not_allowed"],
      [".env", "path_not_allowed"],
      [".vscode/tasks.json", "path_not_allowed"],
      ["x\0y", "path_not_allowed"],
    ];
    for (const [path, type] of cases) {
      const result = await run({ path, content: "pwned", overwrite: true });
      expect(result.error?.type, path).toBe(type);
    }
    expect(await readdir(join(base, "evil"))).toEqual([]);
    expect(await readFile(join(base, "outside.txt"), "utf8")).toBe("outside\n");
    expect((await readdir(base)).sort()).toEqual(["evil", "outside.txt", "proj"]);
    const protectedResult = await run({ path: ".mcp.json", content: "{}" });
    expect(protectedResult.error?.message).toBe(
      'path ".mcp.json" is protected and cannot be written by file tools (protected: .mcp.json)',
    );
  });

  it("keeps ~ and %2e%2e literal, inside the root", async () => {
    await run({ path: "~/x.txt", content: "a" });
    await run({ path: "%2e%2e/y.txt", content: "b" });
    expect(await readFile(join(root, "~/x.txt"), "utf8")).toBe("a");
    expect(await readFile(join(root, "%2e%2e/y.txt"), "utf8")).toBe("b");
  });

  it("shows a unified diff in the confirmation details", async () => {
    await writeFile(join(root, "d.txt"), "one\ntwo\n");
    const details = await tool
      .build({ path: "d.txt", content: "one\nTWO\n", overwrite: true })
      .confirmation(signal);
    expect(details).not.toBe(false);
    if (details === false) return;
    expect(details.type).toBe("edit");
    expect(details.diff).toContain("--- a/d.txt\n+++ b/d.txt\n");
    expect(details.diff).toContain("-two\n+TWO\n");
    const fresh = await tool.build({ path: "n.txt", content: "hi\n" }).confirmation(signal);
    expect(fresh !== false && fresh.diff).toContain("+hi\n");
  });
});
