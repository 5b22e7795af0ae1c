/**
 * @module planner/extract-text
 * Arguments for file tools found in free text: a file path (`src/index.ts`, `README.md`), a search term for
 * `grep` (a quoted string or a code identifier — never the whole question, which is no regex), and a glob for
 * `glob` (`src/**\/*.ts`, or "all .md files" → `**\/*.md`).
 */

const URL_LIKE = /https?:\/\/\S+/gi;
const FILE_EXTENSIONS = new Set(
  (
    "md mdx txt rst adoc json jsonc json5 yaml yml toml ini cfg conf env lock xml csv tsv html htm css scss less " +
    "js mjs cjs jsx ts mts cts tsx vue svelte py pyi ipynb rb go rs java kt kts scala swift m mm c h cc cpp cxx hpp " +
    "cs fs php pl pm lua r jl dart ex exs erl hs ml clj sql sh bash zsh fish ps1 bat cmd dockerfile gradle proto " +
    "graphql gql tf hcl nix mk cmake log pdf docx xlsx pptx png jpg jpeg gif svg wasm patch diff"
  ).split(" "),
);
const KNOWN_NAMES = new Set([
  "Makefile",
  "Dockerfile",
  "README",
  "LICENSE",
  "CHANGELOG",
  "Gemfile",
  "Rakefile",
  "Procfile",
  "Jenkinsfile",
  ".gitignore",
  ".env",
  ".npmrc",
  ".editorconfig",
  ".dockerignore",
]);
/** Library names that look like files. */
const NOT_FILES = new Set([
  "node.js",
  "vue.js",
  "next.js",
  "nuxt.js",
  "express.js",
  "three.js",
  "d3.js",
  "chart.js",
  "react.js",
  "asp.net",
  "socket.io",
]);

const PATH_TOKEN =
  /(?<![A-Za-z0-9_.\-/\\~@])((?:~|\.{1,2})?[/\\]?(?:[A-Za-z0-9_.@-]+[/\\])*[A-Za-z0-9_.@-]+)(?![A-Za-z0-9_\-/\\])/g;

/**
 * The first file path in `text`: a token with a known file extension or name, or with a directory part and
 * an extension. URLs are not paths.
 * @example findPath("读一下 src/core/types.ts 的内容") // "src/core/types.ts"
 */
export function findPath(text: string): string | undefined {
  for (const match of text.replace(URL_LIKE, " ").matchAll(PATH_TOKEN)) {
    const token = match[1]!.replace(/[.]+$/, "");
    const base = token.split(/[/\\]/).at(-1) ?? "";
    if (KNOWN_NAMES.has(base)) return token;
    const dot = base.lastIndexOf(".");
    if (dot <= 0 || NOT_FILES.has(base.toLowerCase())) continue;
    const ext = base.slice(dot + 1);
    if (!/^[A-Za-z][A-Za-z0-9]{0,7}$/.test(ext)) continue;
    if (FILE_EXTENSIONS.has(ext.toLowerCase())) return token;
  }
  return undefined;
}

const QUOTED = [
  /`([^`\n]{1,120})`/,
  /"([^"\n]{1,120})"/,
  /“([^”\n]{1,120})”/,
  /「([^」\n]{1,120})」/,
  /『([^』\n]{1,120})』/,
  /'([^'\n]{2,120})'(?![A-Za-z])/,
];
const IDENTIFIER =
  /(?<![A-Za-z0-9_])(?:[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*\(\)|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|TODO|FIXME|XXX|HACK)(?![A-Za-z0-9_])/;

/**
 * A literal to search for: the first quoted string, else the first code identifier (`camelCase`,
 * `PascalCase`, `snake_case`, `fn()`, TODO/FIXME). Plain prose yields nothing.
 * @example findSearchTerm('where is "retry budget" set?') // "retry budget"
 */
export function findSearchTerm(text: string, exclude: readonly string[] = []): string | undefined {
  const cleaned = text.replace(URL_LIKE, " ");
  for (const quote of QUOTED) {
    const term = quote.exec(cleaned)?.[1]?.trim();
    if (term && !exclude.includes(term)) return term;
  }
  for (const match of cleaned.matchAll(new RegExp(IDENTIFIER.source, "g"))) {
    const term = match[0].replace(/\(\)$/, "");
    if (!exclude.includes(term)) return term;
  }
  return undefined;
}

const GLOB_TOKEN = /(?<![A-Za-z0-9_.\-/{},[\]*?!])([A-Za-z0-9_.\-/{},[\]!]*[*?][A-Za-z0-9_.\-/{},[\]*?!]*)/g;
const EXTENSION_FILES = /(?<![A-Za-z0-9_])\.([A-Za-z][A-Za-z0-9]{0,7})\s*(?:files?|文件)/i;

/**
 * A glob pattern: an explicit one (`src/**\/*.ts`, `*.md`), else "all .md files" / ".md 文件" → `**\/*.md`.
 * @example findGlob("list *.ts files under src") // "*.ts"
 */
export function findGlob(text: string): string | undefined {
  for (const match of text.replace(URL_LIKE, " ").matchAll(GLOB_TOKEN)) {
    const token = match[1]!.replace(/[.,;:!?]+$/, "");
    if (/[*?]/.test(token) && /[./]/.test(token) && token.replace(/[*?]/g, "") !== "") return token;
  }
  const ext = EXTENSION_FILES.exec(text);
  if (ext && FILE_EXTENSIONS.has(ext[1]!.toLowerCase())) return `**/*.${ext[1]}`;
  return undefined;
}
