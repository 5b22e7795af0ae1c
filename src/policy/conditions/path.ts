/**
 * @module policy/conditions/path
 * The `path` argument kind: file arguments compared as canonical paths relative to their root, never as the
 * raw string. Operators: glob (gitignore-style), equals, oneOf, prefix (whole components), contains, regex.
 * A value that is not a path inside the roots matches deny rules and nothing else (fail closed).
 */
import ignore from "ignore";
import type { Decision } from "../../core/index.js";
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
    const exact = ignore({ ignorecase: false }).add(patterns);
    const folded = ignore({ ignorecase: true }).add(patterns);
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
