/**
 * @module policy/conditions/path
 * The `path` argument kind: file arguments compared as canonical paths relative to their root, never as the
 * raw string. Operators: glob (gitignore-style), equals, oneOf, prefix (whole components), contains, regex.
 * A value that is not a path inside the roots matches deny rules and nothing else (fail closed).
 */
import type { Decision } from "../../core/index.js";
import { gitignoreRules } from "../../utils/index.js";
import type { ArgKindPlugin, ConditionTest, OperatorCompiler } from "../types.js";
import { compileSafeRegex, stringList } from "./operands.js";

/**
 * Canonicalizes a raw path argument: its canonical absolute path and that path relative to its root
 * (`/`-separated, "" for the root itself), or undefined when it is not a path inside the roots.
 * The workspace provides it (`workspace.canonicalizeForPolicy`); the policy does not import the workspace.
 */
export type PathCanonicalizer = (
  raw: string,
  roots: readonly string[],
) => Promise<{ relative: string; canonical: string } | undefined>;

/** One path argument as the operators see it. */
export type SinglePath = { ok: true; relative: string; canonical: string } | { ok: false; reason: string };

/**
 * A path argument: one path, or a list (e.g. `read_many_files` `paths`). A list satisfies an allow rule
 * only when every entry does, and an ask or deny rule when any entry does — the stricter reading each way.
 */
export type PathValue = SinglePath | { ok: true; list: SinglePath[] };

/**
 * Wraps a test on a canonical path. A value that could not be canonicalized holds only for deny rules, so
 * an unresolvable path is denied by any deny rule on the argument and never allowed by an allow rule.
 * Deny rules compare case-insensitively (on a case-insensitive file system `SECRETS/x` is `secrets/x`).
 */
function onPath(
  test: (relative: string, canonical: string, fold: boolean) => boolean,
): ConditionTest<PathValue> {
  const one = (value: SinglePath, decision: Decision) => {
    if (!value.ok) return decision === "deny";
    return test(value.relative, value.canonical, decision === "deny");
  };
  return (value: PathValue, decision: Decision) => {
    if (!("list" in value)) return one(value, decision);
    if (decision === "allow") return value.list.length > 0 && value.list.every((v) => one(v, decision));
    return value.list.some((v) => one(v, decision));
  };
}

/** An operand path: `./` and trailing `/` removed; absolute operands compare with the canonical path. */
function operandPath(raw: string): { path: string; absolute: boolean } {
  if (raw.startsWith("/")) return { path: raw.length > 1 ? raw.replace(/\/+$/, "") : raw, absolute: true };
  const path = raw.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (path === "" || path === ".") return { path: "", absolute: false };
  return { path, absolute: false };
}

function same(a: string, b: string, fold: boolean): boolean {
  return fold ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function under(parent: string, child: string, fold: boolean): boolean {
  const p = fold ? parent.toLowerCase() : parent;
  const c = fold ? child.toLowerCase() : child;
  if (p === "" || c === p) return true;
  return c.startsWith(p.endsWith("/") ? p : `${p}/`);
}

function pathEquals(operands: string[]): ConditionTest<PathValue> {
  const wanted = operands.map(operandPath);
  return onPath((relative, canonical, fold) =>
    wanted.some((w) => same(w.absolute ? canonical : relative, w.path, fold)),
  );
}

const operators: Record<string, OperatorCompiler<PathValue>> = {
  glob(operand) {
    const patterns = stringList(operand);
    for (const p of patterns) if (p.trim() === "") throw new Error("glob must not be empty");
    const exact = gitignoreRules({ ignorecase: false }).add(patterns);
    const folded = gitignoreRules({ ignorecase: true }).add(patterns);
    return onPath(
      (relative, _canonical, fold) => relative !== "" && (fold ? folded : exact).ignores(relative),
    );
  },
  equals(operand) {
    if (typeof operand !== "string") throw new Error("expects a path string");
    return pathEquals([operand]);
  },
  oneOf(operand) {
    return pathEquals(stringList(operand));
  },
  prefix(operand) {
    const prefixes = stringList(operand).map(operandPath);
    return onPath((relative, canonical, fold) =>
      prefixes.some((p) => under(p.path, p.absolute ? canonical : relative, fold)),
    );
  },
  contains(operand) {
    const parts = stringList(operand);
    return onPath((relative, _canonical, fold) =>
      parts.some((p) => (fold ? relative.toLowerCase().includes(p.toLowerCase()) : relative.includes(p))),
    );
  },
  regex(operand) {
    const res = stringList(operand).map(compileSafeRegex);
    return onPath((relative) => res.some((re) => re.test(relative)));
  },
};

/**
 * Index keys (see `ArgKindPlugin.operandKeys`): `0:NAME` for a path whose first component is NAME, in
 * lower case (deny rules compare case-insensitively). Only operands whose first component is a plain ASCII
 * name give keys: an anchored glob (`pkg/**`, `/pkg/x`), a relative `prefix`, `equals` or `oneOf`. A glob
 * without a slash before its end (`*.md`, `dist/`) matches at any depth, and absolute operands compare the
 * canonical path: no keys. Negated globs (`!x`) only take paths away, so they add none.
 */
function pathOperandKeys(operator: string, operand: unknown): readonly string[] | undefined {
  let list: string[];
  try {
    list = stringList(operand);
  } catch {
    return undefined;
  }
  const keys = new Set<string>();
  for (const raw of list) {
    let key: string | undefined;
    if (operator === "glob") {
      if (raw.startsWith("!")) continue;
      key = anchoredGlobKey(raw);
    } else if (operator === "prefix" || operator === "equals" || operator === "oneOf") {
      const { path, absolute } = operandPath(raw);
      key = absolute ? undefined : firstComponentKey(path, path.indexOf("/"));
    }
    if (key === undefined) return undefined;
    keys.add(key);
  }
  return keys.size > 0 ? [...keys] : undefined;
}

/** The key of a gitignore-style glob anchored at the root by a slash before its end, if it has a plain one. */
function anchoredGlobKey(glob: string): string | undefined {
  const body = glob.startsWith("/") ? glob.slice(1) : glob;
  const slash = body.indexOf("/");
  // No slash, or only a trailing one: the pattern matches at any depth.
  if (slash === -1 || slash === body.length - 1) return undefined;
  return firstComponentKey(body, slash);
}

/** `0:name` for a first component made only of ASCII letters, digits, `.`, `_` and `-` (not `.`/`..`). */
function firstComponentKey(path: string, slash: number): string | undefined {
  const first = slash === -1 ? path : path.slice(0, slash);
  if (!/^[A-Za-z0-9._-]+$/.test(first) || first === "." || first === "..") return undefined;
  return `0:${first.toLowerCase()}`;
}

/** The key of each path in a value; undefined when one is not a path (it matches deny rules of any operand). */
function pathValueKeys(value: PathValue): readonly string[] | undefined {
  if (!("list" in value)) return value.ok ? [singleKey(value.relative)] : undefined;
  const keys: string[] = [];
  for (const entry of value.list) {
    if (!entry.ok) return undefined;
    keys.push(singleKey(entry.relative));
  }
  return keys;
}

function singleKey(relative: string): string {
  const slash = relative.indexOf("/");
  return `0:${(slash === -1 ? relative : relative.slice(0, slash)).toLowerCase()}`;
}

/**
 * Builds the `path` plug-in around a canonicalizer (the workspace's, so the policy sees exactly the paths
 * the tools will use).
 * @example
 * const pathKind = createPathKind((raw) => workspace.canonicalizeForPolicy(raw));
 * const deny = pathKind.operators.glob!("secrets/**");
 */
export function createPathKind(canonicalize: PathCanonicalizer): ArgKindPlugin<PathValue> {
  return Object.freeze({
    kind: "path" as const,
    async prepare(raw: unknown, context: { roots: readonly string[] }): Promise<PathValue> {
      if (Array.isArray(raw)) {
        return { ok: true, list: await Promise.all(raw.map((item) => prepareOne(item, context.roots))) };
      }
      return prepareOne(raw, context.roots);
    },
    operators: Object.freeze(operators),
    operandKeys: pathOperandKeys,
    valueKeys: pathValueKeys,
  });

  async function prepareOne(raw: unknown, roots: readonly string[]): Promise<SinglePath> {
    if (typeof raw !== "string") return { ok: false, reason: "the value is not a string" };
    if (raw.includes("\0")) return { ok: false, reason: "the path contains a NUL byte" };
    try {
      const result = await canonicalize(raw, roots);
      return result ? { ok: true, ...result } : { ok: false, reason: "the path is not inside the roots" };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
}
