/**
 * @module utils/glob
 * The one glob dialect for names and words (picomatch), set up once: tool names in a rule's `tool` and an
 * agent's `tools`, a rule's `when … glob` on text or a command line, the glob and grep tools' file
 * patterns. Everywhere it means the same: `*` and `?` stay within a `/`-separated segment (a command line is
 * not a path: `crossSlash` lets them cross), `**` crosses segments, dot files match unless a caller leaves
 * them out, `[!x]` and `[^x]` both negate, `[[:digit:]]` is a class, `{a,b}` is a choice, and an unbalanced
 * bracket, brace or parenthesis is refused rather than read literally.
 *
 * The other dialect is gitignore's, for paths a rule or a file lists (`when.path glob`, `[files] protected`,
 * the protected list, `.gitignore`): {@link gitignoreRules}, the `ignore` package, where `*.env` matches at
 * any depth and `!x` takes a path back.
 * `src/utils/testdata/glob-dialects.json` holds each pattern form in both dialects; src/glob-dialects.test.ts
 * runs it through every caller.
 */
import { createRequire } from "node:module";
import type ignoreFactory from "ignore";
import type { Ignore } from "ignore";
import picomatch from "picomatch";

export type { Ignore as GitignoreRules } from "ignore";

/** How a caller's values differ from a plain name: everything else is the same for every caller. */
export interface GlobOptions {
  /** Whether `*`, `?` and `[...]` match names starting with `.`. Default true. */
  dot?: boolean;
  /** Whether `*` and `?` also match `/` (for command lines, which are no paths). Default false. */
  crossSlash?: boolean;
  /** Whether letters match either case. Default false. */
  nocase?: boolean;
}

function picomatchOptions(options: GlobOptions): picomatch.PicomatchOptions {
  return {
    strictBrackets: true,
    // `posix` makes `[!a]` a negated class, as in shells (picomatch otherwise reads `!` as a member).
    posix: true,
    dot: options.dot ?? true,
    ...(options.crossSlash ? { bash: true } : {}),
    ...(options.nocase ? { nocase: true } : {}),
  };
}

// Policies repeat their globs and a policy is built anew for each gate, so compiled ones are shared. The
// regexes have no `g` or `y` flag: sharing one keeps no state between tests.
const CACHE_SIZE = 2000;
const cache = new Map<string, RegExp>();

/**
 * The regular expression of one glob.
 * @throws Error with picomatch's reason when the glob is malformed (`Missing closing: "]"`); callers say
 *   whose glob it was.
 */
export function globRegex(glob: string, options: GlobOptions = {}): RegExp {
  const key = `${glob}\0${options.dot ?? true}${options.crossSlash ?? false}${options.nocase ?? false}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = picomatch.makeRe(glob, picomatchOptions(options));
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(key, re);
  }
  return re;
}

/**
 * A test for values matching any of the globs.
 * @throws Error `malformed glob "[abc": Missing closing: "]" …`, or for an empty glob.
 * @example compileGlob("src/**\/*.ts")("src/a/b.ts") // true
 */
export function compileGlob(
  globs: string | readonly string[],
  options: GlobOptions = {},
): (value: string) => boolean {
  const list = typeof globs === "string" ? [globs] : globs;
  const res = list.map((glob) => {
    if (glob === "") throw new Error("glob must not be empty");
    try {
      return globRegex(glob, options);
    } catch (error) {
      throw new Error(`malformed glob ${JSON.stringify(glob)}: ${(error as Error).message}`);
    }
  });
  return res.length === 1 ? (value) => res[0]!.test(value) : (value) => res.some((re) => re.test(value));
}

/** The folder a glob's matches all lie under (`src/lib` for `src/lib/**\/*.ts`; "" when none), and whether it is a glob at all. */
export function globBase(glob: string): { base: string; isGlob: boolean } {
  const { base, isGlob } = picomatch.scan(glob);
  return { base, isGlob };
}

const require = createRequire(import.meta.url);
let ignore: typeof ignoreFactory | undefined;

/**
 * An empty set of gitignore-dialect rules; `.add(patterns)` fills it, `.ignores(relativePath)` tests a path.
 * Letters match either case unless `ignorecase: false`. The `ignore` package is loaded on first use, through
 * `require`: importing its CommonJS file from ESM makes Node parse it for named exports, which costs several
 * megabytes of memory in every process.
 * @example gitignoreRules().add(["*.env"]).ignores("config/prod.env") // true
 */
export function gitignoreRules(options: { ignorecase?: boolean } = {}): Ignore {
  ignore ??= require("ignore") as typeof ignoreFactory;
  return ignore(options);
}

/** Whether `ignores` accepts the path: relative, normalized, not empty. */
export function isGitignorePath(path: string): boolean {
  ignore ??= require("ignore") as typeof ignoreFactory;
  return ignore.isPathValid(path);
}
