/**
 * @module bench/file-corpora
 * The files the file-tool benchmarks search and read, made once per folder and reused: a repository-shaped
 * tree for grep and a 219 MB file of 81-byte lines for deep ranges.
 */
import { execFile } from "node:child_process";
import { mkdir, open, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { seededRandom } from "../utils/index.js";

const CODE_LINES = [
  'import { parse } from "./parser.js";',
  "export function handle(request, options) {",
  "  const value = options.value ?? 0;",
  "  if (!request) return null;",
  "  for (const item of request.items) {",
  "    result.push(transform(item, value));",
  "  }",
  "  return result;",
  "}",
  "// keeps the cache warm between calls",
  "  const config = await loadConfig(path);",
  "  if (error) return { ok: false, error };",
  "  let index = 0;",
  "  while (index < data.length) index += step;",
  "  return data.slice(0, index);",
  "export default class Store {",
  "  constructor(path) { this.path = path; }",
  "  async get(key) { return this.map.get(key); }",
  '  throw new Error("bad value: " + value);',
  "/** Returns the file's size in bytes. */",
];

/** One generated source file: 60–200 lines picked from CODE_LINES (about one in six holds `return`). */
export function sourceFile(random: () => number): string {
  const lines: string[] = [];
  const count = 60 + Math.floor(random() * 140);
  for (let i = 0; i < count; i++) lines.push(CODE_LINES[Math.floor(random() * CODE_LINES.length)] as string);
  return `${lines.join("\n")}\n`;
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * A tree shaped like a real repository (about 30 MB) in `parent/grep`: `src/` (1,200 files in nested
 * folders), committed `vendor/` libraries (800 files), git-ignored `node_modules/` (2,000) and `dist/` build
 * output (1,200 plus source maps), docs, and two secret files (`certs/dev.pem`, `deploy/prod.key`) that also
 * hold the pattern. `return` matches about 42,000 lines in the searched files.
 */
export async function grepCorpus(parent: string): Promise<string> {
  const dir = join(parent, "grep");
  if (await exists(join(dir, ".complete"))) return dir;
  await rm(dir, { recursive: true, force: true });
  const random = seededRandom(42);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, ".gitignore"), "node_modules/\ndist/\n*.log\n");
  const groups: [string, number, (i: number) => string][] = [
    ["src", 1200, (i) => `src/feature${i % 24}/${i % 3 === 0 ? "lib/" : ""}module${i}.ts`],
    ["vendor", 800, (i) => `vendor/lib${i % 16}/dist/part${i}.js`],
    ["node_modules", 2000, (i) => `node_modules/pkg${i % 80}/lib/file${i}.js`],
    ["dist", 1200, (i) => `dist/feature${i % 24}/module${i}.js`],
  ];
  for (const [, count, name] of groups) {
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, async (_, k) => {
          const path = join(dir, name(i + k));
          // Drawn before the first await, so the tree is the same whatever order the writes finish in.
          const text = sourceFile(random);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, text);
        }),
      );
    }
  }
  await mkdir(join(dir, "docs"), { recursive: true });
  for (let i = 0; i < 100; i++) await writeFile(join(dir, "docs", `guide${i}.md`), sourceFile(random));
  for (const secret of ["certs/dev.pem", "deploy/prod.key"]) {
    await mkdir(dirname(join(dir, secret)), { recursive: true });
    await writeFile(join(dir, secret), "return the key\n".repeat(10));
  }
  await writeFile(join(dir, "build.log"), "return\n".repeat(1000));
  await writeFile(join(dir, ".complete"), "");
  // The kernel writing the fresh files back would run through the timings, on either side at random.
  await promisify(execFile)("sync");
  return dir;
}

/** `parent/huge.txt`: 219 MB of 81-byte lines (2.7 million), each starting with its number. */
export async function hugeFile(parent: string): Promise<string> {
  const file = join(parent, "huge.txt");
  if (await exists(file)) return file;
  const handle = await open(file, "w");
  try {
    const pad = "x".repeat(71);
    for (let start = 1; start <= 2_700_000; start += 100_000) {
      const lines: string[] = [];
      for (let i = start; i < start + 100_000; i++) lines.push(`${String(i).padStart(8, "0")} ${pad}\n`);
      await handle.write(lines.join(""));
    }
  } finally {
    await handle.close();
  }
  return file;
}
