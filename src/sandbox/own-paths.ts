/**
 * @module sandbox/own-paths
 * Paths that decide what runs on the host next and may lie inside a workspace root, kept read-only inside the
 * sandbox (issue 26, red team I5b/I5c): each folder of toolgate's PATH (an activated `.venv/bin`, npm's
 * `node_modules/.bin` under `npx` or an npm script, direnv's `PATH_add bin` — a `git` planted there runs at the
 * person's next `git`), and toolgate's own code with the packages it loads (installed as a project dependency,
 * `node_modules/toolgate` — edited, it is the next call's toolgate). Which folders: those of PATH as toolgate
 * has it (the person's, when toolgate started) and of the running toolgate; the survey keeps the ones inside a
 * writable place read-only. Host programs toolgate runs itself never come from PATH's workspace folders at all
 * (host-programs.ts).
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folders of `pathVariable` (relative entries resolved against each root and toolgate's start folder, as a
 * shell started there would), canonical when they exist.
 * @example pathFolders("node_modules/.bin:/usr/bin", ["/ws"]) // ["/ws/node_modules/.bin", "/usr/bin", …]
 */
export function pathFolders(pathVariable: string, roots: readonly string[]): string[] {
  const out = new Set<string>();
  for (const entry of pathVariable.split(delimiter)) {
    // An empty entry is the current folder to a shell.
    const bases = isAbsolute(entry) ? [""] : [...roots, process.cwd()];
    for (const base of bases) out.add(canonicalOrSelf(base === "" ? entry : resolve(base, entry || ".")));
  }
  return [...out];
}

let own: string[] | undefined;

/**
 * toolgate's own code: the folder of the running modules (`dist/` of the package, or `src/` in development), its
 * `package.json`, and the package folder of each dependency it loads, found the way Node resolves them (the
 * nearest `node_modules/NAME` upwards), transitively. Canonical paths; computed once per process.
 */
export function toolgateCodePaths(): string[] {
  if (own) return own;
  const here = dirname(fileURLToPath(import.meta.url));
  const root = packageRootOf(here);
  if (root === undefined) {
    own = [];
    return own;
  }
  const codeFolder = join(root, relative(root, here).split(sep)[0]!);
  const found = new Set<string>([canonicalOrSelf(codeFolder), canonicalOrSelf(join(root, "package.json"))]);
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const pkg = queue.pop()!;
    for (const name of dependenciesOf(pkg)) {
      const dep = resolvePackage(pkg, name);
      if (dep === undefined || seen.has(dep)) continue;
      seen.add(dep);
      found.add(dep);
      queue.push(dep);
    }
  }
  own = [...found];
  return own;
}

/** The nearest folder upwards with a package.json naming toolgate. */
function packageRootOf(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const json = readJson(join(dir, "package.json"));
    if (json && json.name === "toolgate") return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function dependenciesOf(pkg: string): string[] {
  const json = readJson(join(pkg, "package.json"));
  if (!json) return [];
  const names = (field: unknown) => (field && typeof field === "object" ? Object.keys(field) : []);
  return [...names(json.dependencies), ...names(json.optionalDependencies)];
}

/** Node's lookup: `node_modules/NAME` in the package's folder, then in each folder above. */
function resolvePackage(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return canonicalOrSelf(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function canonicalOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The programs protected package-manager settings name to run, at each root (red team I4): Yarn's `yarnPath`
 * (`.yarnrc.yml`) and classic Yarn's `yarn-path` (`.yarnrc`). The settings file is read-only in the sandbox; the
 * file it names is kept read-only too, wherever in the root it lies (`.yarn/releases` is also protected by name).
 * @example pointerTargets(["/ws"]) // ["/ws/.yarn/releases/yarn-4.5.0.cjs"] when .yarnrc.yml names it
 */
export function pointerTargets(roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    for (const [file, pattern] of POINTERS) {
      let text: string;
      try {
        text = readFileSync(join(root, file), "utf8");
      } catch {
        continue;
      }
      for (const match of text.matchAll(pattern)) {
        const named = match[1]!.trim();
        if (named !== "") out.push(canonicalOrSelf(resolve(root, named)));
      }
    }
  }
  return out;
}

/** A settings file and the setting naming a program (its value, quoted or not, in group 1). */
const POINTERS: readonly [string, RegExp][] = [
  [".yarnrc.yml", /^\s*yarnPath\s*:\s*["']?([^"'\n#]+)["']?/gm],
  [".yarnrc", /^\s*yarn-path\s+["']?([^"'\n#]+)["']?/gm],
];
