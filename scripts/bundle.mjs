/**
 * @module scripts/bundle
 * Bundles the `toolgate` command (after `tsc`) into `dist/bin/`: our own modules and the small pure-JS
 * libraries every call needs (picomatch, smol-toml…) become one file, because loading ~270 separate
 * modules was most of the command's start-up time. Everything else stays an ordinary import of the
 * installed package: libraries that are loaded only when used (the HTML stack, model clients, MCP SDK,
 * lock library, WASM runtime) and those that find files next to themselves (ripgrep's binary).
 * Commands and lazily loaded parts of ours become chunks loaded on use.
 * Before that, two libraries are vendored into `dist/` so the installed package does not depend on them:
 * `dist/tools/web/turndown.js` becomes turndown itself (without the domino HTML parser it would pull in, 7.5 MB
 * installed, which toolgate never calls: it converts linkedom nodes), and `dist/policy/shell/tree-sitter.js`
 * becomes web-tree-sitter's ES module, its runtime `.wasm` beside the bash grammar (the package is 5.5 MB
 * installed for these two files). Licenses go with them.
 * Also copies the bash grammar (`tree-sitter-bash.wasm`, with its license) into `dist/policy/shell/grammar/`.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));

/** Packages inlined into the bundle (with their own dependencies); every other package stays external. */
// ajv is not among them: calls to built-in tools use precompiled validators, and other tools load ajv on
// first use (core/validate.ts).
const INLINE = new Set([
  "picomatch",
  "smol-toml",
  "fdir",
  "safe-regex2",
  "ret",
  "ignore",
  "diff",
  // Every call validates its config with zod: loaded as its ~80 separate files, it cost more than the rest
  // of `call read_file`'s start-up.
  "zod",
]);

function packageName(id) {
  const parts = id.split("/");
  return id.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Path of a file inside an installed (dev) dependency (found from its entry: not all export package.json). */
function inPackage(name, file) {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, "package.json")) || !dir.endsWith(name)) dir = dirname(dir);
  return join(dir, file);
}
const grammarDir = join(root, "dist", "policy", "shell", "grammar");
mkdirSync(grammarDir, { recursive: true });

// turndown: one ES module with its code inlined; `require("@mixmark-io/domino")` gets a stand-in that refuses
// HTML text (turndown asks for a parser when it loads, and uses it only when given a string).
const NO_DOMINO = "\0toolgate-no-domino";
await build({
  input: inPackage("turndown", "lib/turndown.cjs.js"),
  platform: "node",
  plugins: [
    {
      name: "toolgate-no-domino",
      resolveId: (id) => (id === "@mixmark-io/domino" ? NO_DOMINO : null),
      load: (id) =>
        id === NO_DOMINO
          ? 'export function createDocument() { throw new Error("toolgate ships turndown without an HTML parser: pass a DOM node, not HTML text"); }'
          : null,
    },
  ],
  output: { file: join(root, "dist", "tools", "web", "turndown.js"), format: "esm", comments: false },
  logLevel: "warn",
});
copyFileSync(inPackage("turndown", "LICENSE"), join(root, "dist", "tools", "web", "turndown.LICENSE"));

// web-tree-sitter: its ES module as published (no source-map reference), its `.wasm` and license.
const runtime = readFileSync(inPackage("web-tree-sitter", "tree-sitter.js"), "utf8");
writeFileSync(
  join(root, "dist", "policy", "shell", "tree-sitter.js"),
  runtime.replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n"),
);
// Its types too (an ambient `declare module "web-tree-sitter"`), so our declarations that name its types resolve.
const shellDir = join(root, "dist", "policy", "shell");
copyFileSync(inPackage("web-tree-sitter", "web-tree-sitter.d.ts"), join(shellDir, "web-tree-sitter.d.ts"));
const shim = join(shellDir, "tree-sitter.d.ts");
const declarations = readFileSync(shim, "utf8");
if (!declarations.startsWith("/// <reference"))
  writeFileSync(shim, `/// <reference path="./web-tree-sitter.d.ts" />\n${declarations}`);
copyFileSync(inPackage("web-tree-sitter", "tree-sitter.wasm"), join(grammarDir, "tree-sitter.wasm"));
copyFileSync(inPackage("web-tree-sitter", "LICENSE"), join(grammarDir, "web-tree-sitter.LICENSE"));

// The console page's scripts: small browser modules served as /app.js and /login.js (no inline script: the
// CSP forbids it).
for (const page of ["app", "login"]) {
  await build({
    input: join(root, "src", "console", "page", `${page}.ts`),
    platform: "browser",
    output: {
      file: join(root, "dist", "console", "page", `${page}.js`),
      format: "esm",
      comments: false,
      minify: true,
    },
    logLevel: "warn",
  });
}

const out = join(root, "dist", "bin");
rmSync(out, { recursive: true, force: true });
await build({
  input: { toolgate: join(root, "dist", "cli", "main.js") },
  platform: "node",
  plugins: [
    {
      // The WASM runtime stays its own file: emscripten code evaluates strings in its module's scope, which
      // bundling would rename. Chunks are in dist/bin/, so this path reaches it from every one.
      name: "toolgate-runtime-external",
      resolveId: (id, importer) =>
        id === "./tree-sitter.js" && importer?.endsWith(join("policy", "shell", "parser.js"))
          ? { id: "../policy/shell/tree-sitter.js", external: true }
          : null,
    },
  ],
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
copyFileSync(
  inPackage("tree-sitter-bash", "tree-sitter-bash.wasm"),
  join(grammarDir, "tree-sitter-bash.wasm"),
);
copyFileSync(inPackage("tree-sitter-bash", "LICENSE"), join(grammarDir, "LICENSE"));
