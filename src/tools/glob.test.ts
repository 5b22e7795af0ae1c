import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createGlobTool, type GlobParams } from "./glob.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createGlobTool>;
const run = (params: GlobParams) => tool.build(params).run(new AbortController().signal);
const files = async (params: GlobParams) => ((await run(params)).data as { files: string[] }).files;

const corpus: Record<string, string> = {
  ".gitignore": "dist/\n*.log\n",
  ".git/info/exclude": "local.ts\n",
  ".git/config": "",
  "src/a.ts": "",
  "src/b.ts": "",
  "src/c.js": "",
  "src/.hidden.ts": "",
  "src/nested/d.ts": "",
  "src/nested/.gitignore": "skip.ts\n",
  "src/nested/skip.ts": "",
  "src/gen/.keep": "",
  ".config/e.ts": "",
  "dist/out.ts": "",
  "debug.log": "",
  "local.ts": "",
  "z.ts": "",
};

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-glob-")));
  root = join(base, "proj");
  for (const [path, content] of Object.entries(corpus)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await writeFile(join(base, "outside.ts"), "");
  await symlink(base, join(root, "up"));
  tool = createGlobTool({ workspace: await Workspace.create([root]) });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("glob", () => {
  it("declares a low-risk search tool", () => {
    expect([tool.name, tool.kind, tool.risk]).toEqual(["glob", "search", "low"]);
  });

  it("finds matches sorted, skipping gitignored (nested, info/exclude) and symlinked folders", async () => {
    expect(await files({ pattern: "**/*.ts" })).toEqual(["src/a.ts", "src/b.ts", "src/nested/d.ts", "z.ts"]);
    expect(await files({ pattern: "*.ts" })).toEqual(["z.ts"]);
    expect(await files({ pattern: "src/*.{ts,js}" })).toEqual(["src/a.ts", "src/b.ts", "src/c.js"]);
    expect(await files({ pattern: "**/*.ts", path: "src/nested" })).toEqual(["src/nested/d.ts"]);
  });

  it("maxResults caps the list and says how many were left out", async () => {
    const result = await run({ pattern: "**/*.ts", maxResults: 2 });
    expect(result.llmContent).toBe(
      "src/a.ts\nsrc/b.ts\n(2 more not shown; limit 2, set maxResults or narrow the pattern)",
    );
  });

  it("hidden files only with includeHidden, and never .git", async () => {
    expect(await files({ pattern: "**/*.ts", includeHidden: true })).toEqual([
      ".config/e.ts",
      "src/.hidden.ts",
      "src/a.ts",
      "src/b.ts",
      "src/nested/d.ts",
      "z.ts",
    ]);
    expect(await files({ pattern: "**/config", includeHidden: true })).toEqual([]);
    expect(await files({ pattern: "**/.keep" })).toEqual([]);
    expect(await files({ pattern: "**/.keep", includeHidden: true })).toEqual(["src/gen/.keep"]);
  });

  it("says when nothing matches and refuses escaping patterns and paths", async () => {
    expect((await run({ pattern: "**/*.rs" })).llmContent).toBe('No files match "**/*.rs" in .');
    expect(() => tool.build({ pattern: "../*.ts" })).toThrow('pattern must not contain ".." segments');
    expect(() => tool.build({ pattern: "/etc/*" })).toThrow("pattern must be relative to the search folder");
    expect((await run({ pattern: "*.ts", path: ".." })).error?.type).toBe("path_not_allowed");
    expect((await run({ pattern: "*.ts", path: "up" })).error?.type).toBe("path_not_allowed");
    expect((await run({ pattern: "*.ts", path: "missing" })).error?.type).toBe("file_not_found");
  });
});
