/**
 * @module scripts/bundle
 * Bundles the `toolgate` command (after `tsc`) into `dist/bin/`: our own modules and the small pure-JS
 * libraries every call needs (ajv, picomatch, smol-toml…) become one file, because loading ~270 separate
 * modules was most of the command's start-up time. Everything else stays an ordinary import of the
 * installed package: libraries that are loaded only when used (the HTML stack, model clients, MCP SDK,
 * lock library, WASM runtime) and those that find files next to themselves (ripgrep's binary).
 * Commands and lazily loaded parts of ours become chunks loaded on use.
 * Also copies the bash grammar (`tree-sitter-bash.wasm`, with its license) into `dist/policy/shell/grammar/`.
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));

/** Packages inlined into the bundle (with their own dependencies); every other package stays external. */
const INLINE = new Set([
  "ajv",
  "fast-uri",
  "fast-deep-equal",
  "json-schema-traverse",
  "picomatch",
  "smol-toml",
  "fdir",
  "safe-regex2",
  "ret",
  "ignore",
  "diff",
]);

function packageName(id) {
  const parts = id.split("/");
  return id.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const out = join(root, "dist", "bin");
rmSync(out, { recursive: true, force: true });
await build({
  input: { toolgate: join(root, "dist", "cli", "main.js") },
  platform: "node",
  external: (id) => {
    if (id.startsWith("node:")) return true;
    if (id.startsWith(".") || id.startsWith("/") || id.startsWith("\0")) return false;
    return !INLINE.has(packageName(id));
  },
  output: {
    dir: out,
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    // Comments and whitespace cost parse time at every start; names are kept for readable stack traces.
    minify: { mangle: false, compress: false, codegen: true },
    comments: false,
  },
  logLevel: "warn",
});
chmodSync(join(out, "toolgate.js"), 0o755);

// The bash grammar: shipped as a file, so the package does not depend on tree-sitter-bash at run time.
const grammarDir = join(root, "dist", "policy", "shell", "grammar");
mkdirSync(grammarDir, { recursive: true });
const grammarPackage = dirname(require.resolve("tree-sitter-bash/package.json"));
copyFileSync(join(grammarPackage, "tree-sitter-bash.wasm"), join(grammarDir, "tree-sitter-bash.wasm"));
copyFileSync(join(grammarPackage, "LICENSE"), join(grammarDir, "LICENSE"));
