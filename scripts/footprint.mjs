/**
 * @module scripts/footprint
 * `npm run footprint`: the installed size of the package as a user gets it. Packs the tarball (`npm pack`,
 * so `files` decides what ships), installs it with production dependencies only into an empty temporary
 * project, and measures the bytes on disk under its node_modules, per package. Exits 1 above the goal (or
 * when it cannot measure). `.ci/run` runs it after `npm ci` (whose `prepare` builds `dist/`); the install
 * prefers npm's cache, which `npm ci` has just filled, so the registry is asked only for what it lacks.
 * Needs `npm run build` first.
 */
import { execFileSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const GOAL_MB = 40;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "toolgate-footprint-"));

/** Bytes of the files below `path` (symlinks not followed). */
function bytes(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let sum = 0;
  for (const name of readdirSync(path)) sum += bytes(join(path, name));
  return sum;
}

const mb = (n) => (n / 1024 / 1024).toFixed(1);

try {
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], {
      cwd: root,
      encoding: "utf8",
    }),
  )[0];
  const tarball = join(work, packed.filename);
  const project = join(work, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), '{ "name": "footprint", "private": true }\n');
  execFileSync(
    "npm",
    [
      "install",
      "--omit=dev",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      tarball,
    ],
    { cwd: project, stdio: ["ignore", "ignore", "inherit"] },
  );
  const modules = join(project, "node_modules");
  const rows = [];
  for (const name of readdirSync(modules)) {
    if (name.startsWith(".")) continue;
    const dirs = name.startsWith("@") ? readdirSync(join(modules, name)).map((n) => `${name}/${n}`) : [name];
    for (const dir of dirs) rows.push([dir, bytes(join(modules, dir))]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  const total = bytes(modules);
  console.log(`tarball: ${packed.filename}, ${mb(packed.size)} MB packed, ${packed.entryCount} files`);
  const maps = packed.files.filter((f) => f.path.endsWith(".map")).length;
  const helpers = packed.files.filter((f) => f.path.startsWith("dist/test-support/")).length;
  const shipped = (p) => packed.files.some((f) => f.path === p || f.path.startsWith(`${p}/`));
  console.log(
    `source maps: ${maps}, test helpers: ${helpers}, LICENSE: ${shipped("LICENSE")}, examples/: ${shipped("examples")}, grammar: ${shipped("dist/policy/shell/grammar/tree-sitter-bash.wasm")}`,
  );
  console.log("largest installed packages:");
  for (const [name, size] of rows.slice(0, 12)) console.log(`  ${mb(size).padStart(6)} MB  ${name}`);
  const ok = total <= GOAL_MB * 1024 * 1024 && maps === 0 && helpers === 0;
  console.log(`${ok ? "PASS" : "MISS"}  installed footprint: ${mb(total)} MB (goal ≤ ${GOAL_MB} MB)`);
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
