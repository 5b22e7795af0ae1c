import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createLsTool, type LsParams } from "./ls.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createLsTool>;
const run = (params: LsParams) => tool.build(params).run(new AbortController().signal);

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-ls-")));
  root = join(base, "proj");
  const corpus: Record<string, string> = {
    ".gitignore": "build/\n*.tmp\n",
    ".git/HEAD": "ref\n",
    ".env": "A=1\n",
    "README.md": "x".repeat(1536),
    "src/index.ts": "abc",
    "src/lib/util.ts": "",
    "src/lib/deep/x.ts": "",
    "build/out.js": "",
    "scratch.tmp": "",
  };
  for (const [path, content] of Object.entries(corpus)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await mkdir(join(base, "elsewhere"));
  await writeFile(join(base, "elsewhere/secret.txt"), "");
  await symlink(join(base, "elsewhere"), join(root, "linked"));
  tool = createLsTool({ workspace: await Workspace.create([root]), maxEntries: 5 });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("ls", () => {
  it("lists a folder: folders first and marked, sizes, symlinks shown not followed, ignores applied", async () => {
    const unlimited = createLsTool({ workspace: await Workspace.create([root]) });
    const result = await unlimited.build({}).run(new AbortController().signal);
    expect(result.llmContent).toBe(
      [
        "./",
        "src/",
        ".env  4 B",
        ".gitignore  13 B",
        "README.md  1.5 KB",
        `linked@ -> ${base}/elsewhere`,
      ].join("\n"),
    );
  });

  it("recursive includes subfolders; maxDepth limits the depth", async () => {
    const full = createLsTool({ workspace: await Workspace.create([root]) });
    const signal = new AbortController().signal;
    expect((await full.build({ path: "src", recursive: true }).run(signal)).llmContent).toBe(
      ["src/", "lib/", "  deep/", "    x.ts  0 B", "  util.ts  0 B", "index.ts  3 B"].join("\n"),
    );
    expect((await full.build({ path: "src", recursive: true, maxDepth: 2 }).run(signal)).llmContent).toBe(
      ["src/", "lib/", "  deep/", "  util.ts  0 B", "index.ts  3 B"].join("\n"),
    );
    expect((await full.build({ path: "src" }).run(signal)).llmContent).toBe(
      ["src/", "lib/", "index.ts  3 B"].join("\n"),
    );
  });

  it("caps entries with a note", async () => {
    const result = await run({ recursive: true });
    expect(result.llmContent.split("\n")).toHaveLength(7);
    expect(result.llmContent).toContain("(listing stopped at 5 entries; list a subfolder or lower maxDepth)");
  });

  it("refuses outside paths, symlinked folders leading out, files and missing folders", async () => {
    expect((await run({ path: ".." })).error?.type).toBe("path_not_allowed");
    expect((await run({ path: "linked" })).error?.type).toBe("path_not_allowed");
    expect((await run({ path: "README.md" })).error?.message).toBe('path "README.md" is not a directory');
    expect((await run({ path: "nope" })).error?.message).toBe("directory not found: nope");
  });
});
