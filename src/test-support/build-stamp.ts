/**
 * @module test-support/build-stamp
 * What `dist/` was built from: one digest over every input of `npm run build` (the sources it compiles, the
 * data they import, the compiler settings, the bundler script, the installed packages' lock). The global
 * set-up rebuilds only when the digest differs from the one the last successful build left in
 * `dist/.build-stamp`, so a run after editing only tests starts at once.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const STAMP = ".build-stamp";
const FIXED_INPUTS = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "scripts/bundle.mjs",
];

/** Whether a file under `src/` goes into the build (tsconfig.build.json leaves out tests and their data). */
function isBuildInput(path: string): boolean {
  const parts = path.split(sep);
  if (parts.includes("testdata") || parts.includes("test-support")) return false;
  return !path.endsWith(".test.ts");
}

function sourceFiles(root: string): string[] {
  const src = join(root, "src");
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter(isBuildInput)
    .sort();
}

/** The digest of the build's inputs under `root`; a missing fixed input counts as empty. */
export function buildDigest(root: string): string {
  const hash = createHash("sha256");
  for (const path of [...FIXED_INPUTS, ...sourceFiles(root)]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(root, path));
    } catch {
      bytes = Buffer.alloc(0);
    }
    // Name and length first, so moving bytes from one file to the next changes the digest.
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest("hex");
}

export function readStamp(root: string): string | undefined {
  try {
    return readFileSync(join(root, "dist", STAMP), "utf8").trim();
  } catch {
    return undefined;
  }
}

export const stampPath = (root: string): string => join(root, "dist", STAMP);
