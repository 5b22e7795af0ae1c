/**
 * @module scripts/build
 * `npm run build`: compiles `src/` into an empty `dist/` (tsc), copies the data files tsc does not emit (the
 * built-in policy's TOML), bundles the command (bundle.mjs), and leaves in
 * `dist/.build-stamp` one digest over every input of the build — the sources it compiles and the data they
 * import, the compiler settings, the bundler script, the installed packages' lock.
 *   node scripts/build.mjs               build
 *   node scripts/build.mjs --if-changed  build only when the inputs differ from the stamp, and warn of type
 *                                       errors instead of failing (the tests' set-up; `npm test` typechecks)
 *   node scripts/build.mjs --digest DIR  print the inputs' digest of the project at DIR, build nothing
 * Building into an empty folder means files of deleted sources do not linger, and a build that stops half-way
 * leaves no stamp vouching for it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const FIXED_INPUTS = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/bundle.mjs",
];

/** Whether a file under `src/` goes into the build (tsconfig.build.json leaves out tests and their data). */
function isBuildInput(path) {
  const parts = path.split(sep);
  if (parts.includes("testdata") || parts.includes("test-support")) return false;
  return !path.endsWith(".test.ts") && !path.endsWith(".soak.ts");
}

/** Data files the code reads at run time, which tsc does not emit (it emits the JSON it imports). */
const DATA_EXTENSIONS = [".toml"];

/** The build's inputs under `root/src`, relative to `root`, sorted. */
function buildInputs(root) {
  return readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter(isBuildInput)
    .sort();
}

/** Copies the data files among the inputs into `dist/`, at the same place below it (`src/policy/builtin/*.toml`). */
function copyData(root) {
  for (const path of buildInputs(root)) {
    if (!DATA_EXTENSIONS.some((ext) => path.endsWith(ext))) continue;
    cpSync(join(root, path), join(root, "dist", relative("src", path)));
  }
}

/** The digest of the build's inputs under `root`; a missing fixed input counts as empty. */
export function buildDigest(root) {
  const sources = buildInputs(root);
  const hash = createHash("sha256");
  for (const path of [...FIXED_INPUTS, ...sources]) {
    let bytes;
    try {
      bytes = readFileSync(join(root, path));
    } catch {
      bytes = Buffer.alloc(0);
    }
    // Name and length first, so bytes moved from one file to the next change the digest.
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest("hex");
}

function readStamp(root) {
  try {
    return readFileSync(join(root, "dist", ".build-stamp"), "utf8").trim();
  } catch {
    return undefined;
  }
}

function build(root, digest, lenient) {
  rmSync(join(root, "dist"), { recursive: true, force: true });
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    // tsc still emits on type errors. For the tests the build goes on with a warning (`npm test`'s typecheck
    // step reports them); `npm run build` fails.
    const out = error.stdout?.toString() ?? "";
    if (!lenient || !out) {
      process.stderr.write(out);
      process.exit(1);
    }
    console.warn(`build: tsc reported problems (the build was still emitted):\n${out.slice(0, 4000)}`);
  }
  copyData(root);
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "inherit" });
  writeFileSync(join(root, "dist", ".build-stamp"), `${digest}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [flag, dir] = process.argv.slice(2);
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  if (flag === "--digest") console.log(buildDigest(dir ?? root));
  else {
    const digest = buildDigest(root);
    const lenient = flag === "--if-changed";
    if (!lenient || readStamp(root) !== digest) build(root, digest, lenient);
  }
}
