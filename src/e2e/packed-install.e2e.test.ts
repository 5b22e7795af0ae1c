/**
 * The package as users get it: `npm pack`, then `npm install` of the tarball into a fresh project with its
 * own package.json and a strict tsconfig (`skipLibCheck: false`). The project imports the root and every
 * published subpath (testdata/consumer), type-checks with tsc, and runs; a second script serves a gate over
 * MCP from the installed package. One install; dependencies come from the npm cache the repository's own
 * install filled (`--prefer-offline`), the registry only for what is missing.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const consumerSource = join(root, "src", "e2e", "testdata", "consumer");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
/** A busy two-core machine: packing, installing and a full-library type check each take a while. */
const SLOW = 600_000;

function pkg(path: string): { version: string; exports: Record<string, unknown> } {
  return JSON.parse(readFileSync(path, "utf8"));
}

let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "tg-pack-"));
  app = join(work, "app");
  cpSync(consumerSource, app, { recursive: true });
  // dist/ is built by the test run's global setup; packing must not rebuild it (no `prepare`).
  const packed = await run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  const typesNode = pkg(join(root, "node_modules", "@types", "node", "package.json")).version;
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "toolgate-consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  // Install scripts stay off: ripgrep's would download its binary, and nothing here searches.
  await run(
    npm,
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      join(work, filename),
      `@types/node@${typesNode}`,
    ],
    { cwd: app, maxBuffer: 64 * 1024 * 1024 },
  );
}, SLOW);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed tarball, installed into a strict TypeScript project", () => {
  it("publishes the root and the policy, workspace, mcp and planner subpaths", () => {
    const installed = pkg(join(app, "node_modules", "toolgate", "package.json"));
    for (const subpath of [".", "./policy", "./workspace", "./mcp", "./planner"]) {
      expect(Object.keys(installed.exports)).toContain(subpath);
    }
  });

  it(
    "type-checks with skipLibCheck off, then runs",
    async () => {
      const checked = await run(process.execPath, [tsc, "-p", "."], { cwd: app }).catch(
        (error: { stdout: string; stderr: string }) => {
          throw new Error(`tsc failed in the consumer:\n${error.stdout}${error.stderr}`);
        },
      );
      expect(checked.stdout).toBe("");
      const ran = await run(process.execPath, ["out/main.mjs"], { cwd: app });
      expect(JSON.parse(ran.stdout)).toEqual({
        providers: ["openai", "openai-responses", "anthropic", "gemini", "ollama"],
        anthropicHasReadFile: true,
        openaiHasReadFile: true,
        geminiDeclarations: true,
        read: { ok: true, text: true },
        pattern: true,
        policy: ["allow", "deny"],
        resolved: true,
        planned: ["read_file"],
        serveMcp: true,
        kinds: ["text", "command", "url"],
      });
    },
    SLOW,
  );

  it(
    "serves a gate over MCP from the installed package",
    async () => {
      const ran = await run(process.execPath, ["mcp-check.mjs"], { cwd: app });
      expect(JSON.parse(ran.stdout)).toEqual({ listsReadFile: true, readOverMcp: true });
    },
    SLOW,
  );
});
