import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workspace } from "../workspace/index.js";
import { createReadManyFilesTool, type ReadManyFilesParams } from "./read-many-files.js";

let base: string;
let root: string;
let tool: ReturnType<typeof createReadManyFilesTool>;
const run = (params: ReadManyFilesParams) => tool.build(params).run(new AbortController().signal);

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-many-")));
  root = join(base, "proj");
  const corpus: Record<string, string | Buffer> = {
    ".gitignore": "dist/\n",
    "a.md": "alpha\n",
    "b.md": "bravo",
    "docs/c.md": "charlie\n",
    "dist/d.md": "ignored\n",
    "img.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    "big.txt": "x".repeat(300),
    "keys/deploy.pem": "-----BEGIN PRIVATE KEY-----\n",
  };
  for (const [path, content] of Object.entries(corpus)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await writeFile(join(base, "outside.md"), "outside\n");
  tool = createReadManyFilesTool({ workspace: await Workspace.create([root]) });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("read_many_files", () => {
  it("combines files under path headers, from paths and globs, without duplicates", async () => {
    const result = await run({ paths: ["a.md"], patterns: ["**/*.md"] });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe(
      "--- a.md ---\nalpha\n\n--- b.md ---\nbravo\n\n--- docs/c.md ---\ncharlie\n",
    );
  });

  it("describes binary files and notes missing ones", async () => {
    const result = await run({ paths: ["img.png", "nope.md", "a.md"] });
    expect(result.llmContent).toBe(
      "--- img.png ---\n[binary file: PNG image, 8 B; not shown]\n--- a.md ---\nalpha\n\n--- notes ---\nNot found: nope.md\n",
    );
  });

  it("caps files and total size and lists what was left out", async () => {
    const byCount = await run({ patterns: ["**/*.md"], maxFiles: 2 });
    expect(byCount.llmContent).toContain("Left out (file limit 2 reached): docs/c.md");
    expect(byCount.returnDisplay).toBe("Read 2 files (11 B); 1 left out");
    const bySize = await run({ paths: ["a.md", "big.txt", "b.md"], maxTotalBytes: 20 });
    expect(bySize.llmContent).toBe(
      "--- a.md ---\nalpha\n\n--- b.md ---\nbravo\n\n--- notes ---\nLeft out (total size limit 20 B or file limit 10.0 MB reached): big.txt\n",
    );
  });

  it("refuses outside paths and escaping patterns, and needs at least one entry", async () => {
    expect((await run({ paths: ["a.md", "../outside.md"] })).error?.type).toBe("path_not_allowed");
    expect(() => tool.build({ patterns: ["../*.md"] })).toThrow(
      'pattern "../*.md": pattern must not contain ".." segments',
    );
    expect(() => tool.build({})).toThrow("give at least one entry in paths or patterns");
    expect((await run({ paths: ["nope.md"] })).error?.type).toBe("file_not_found");
  });

  it("never pulls a possibly secret file in through a pattern, and says so", async () => {
    const result = await run({ patterns: ["keys/*"] });
    expect(result.error?.type).toBe("file_not_found");
    expect(result.error?.message).toBe(
      "no files found for keys/* (left out because they may hold secrets: keys/deploy.pem)",
    );
    const mixed = await run({ patterns: ["keys/*", "a.md"] });
    expect(mixed.llmContent).not.toContain("BEGIN PRIVATE KEY");
    expect(mixed.llmContent).toContain(
      "Left out (may hold secrets; read them by path to be asked first): keys/deploy.pem",
    );
  });
});
