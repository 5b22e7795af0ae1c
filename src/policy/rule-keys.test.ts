import { describe, expect, it } from "vitest";
import type { ArgKind, Decision } from "../core/index.js";
import { seededRandom } from "../utils/index.js";
import { createPathKind } from "./conditions/path.js";
import { evaluate } from "./evaluate.js";
import { parsePolicyObject } from "./load.js";
import type { PolicyRecorder, PreparedCall } from "./model.js";
import { createCommandKind } from "./shell/index.js";
import type { ArgKindPlugin } from "./types.js";

const PROGRAMS = ["git", "npm", "ls", "rm", "sed", "find", "awk", "cat", "echo", "node"];
const ARGS = ["status", "log", "-la", "-rf", "test", "run", "-i", "x", "--force", "-delete", "s/a/b/", "."];
const DECISIONS: Decision[] = ["allow", "ask", "deny"];
const kind = createCommandKind() as ArgKindPlugin;
/** The linear scan: with a recorder, evaluate visits every candidate rule. */
const linear: PolicyRecorder = { record: () => undefined };

function generator(seed: number) {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const phrase = (max: number) => {
    const words = [pick(PROGRAMS)];
    const n = Math.floor(rand() * max);
    for (let i = 0; i < n; i++) words.push(pick(ARGS));
    return words.join(" ");
  };
  const list = (make: () => string) => Array.from({ length: 1 + Math.floor(rand() * 3) }, make);
  const condition = (): Record<string, unknown> => {
    switch (Math.floor(rand() * 7)) {
      case 0:
        return { prefix: list(() => phrase(3)) };
      case 1:
        return { equals: phrase(3) };
      case 2:
        return { oneOf: list(() => phrase(3)) };
      case 3:
        return { contains: list(() => pick([...ARGS, ...PROGRAMS])) };
      case 4:
        return { glob: `${pick(PROGRAMS)} *` };
      case 5:
        return { regex: `^${pick(PROGRAMS)}` };
      default:
        return { prefix: pick(PROGRAMS) };
    }
  };
  const rule = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      tool: pick([["shell"], ["shell"], ["shell"], ["*"], ["sh*"], ["shell", "other"]]),
      decision: pick(DECISIONS),
    };
    const r = rand();
    if (r < 0.7) out.when = { command: condition() };
    else if (r < 0.85) out.when = { command: { ...condition(), ...condition() } };
    else if (r < 0.93) out.when = { cwd: { prefix: pick(["sub", "/"]) } };
    if (rand() < 0.1) out.kind = [pick(["execute", "read", "other"])];
    if (rand() < 0.2) out.risk = pick(["low", "medium", "high"]);
    return out;
  };
  const command = (): string => {
    const first = phrase(4);
    switch (Math.floor(rand() * 8)) {
      case 0:
        return `${first} && ${phrase(3)}`;
      case 1:
        return `${first} | ${phrase(3)}`;
      case 2:
        return `sudo ${first}`;
      case 3:
        return `bash -c '${first}'`;
      case 4:
        return `echo $(${first})`;
      case 5:
        return `awk 'BEGIN{system("${phrase(2)}")}'`;
      case 6:
        return `${first} > out.txt`;
      default:
        return first;
    }
  };
  return { rand, pick, rule, command };
}

async function prepared(
  command: string,
  cwd: string | undefined,
  argKinds: Record<string, ArgKind>,
): Promise<PreparedCall> {
  const args: Record<string, unknown> = { command: await kind.prepare(command, { roots: ["/w"], args: {} }) };
  if (cwd !== undefined) args.cwd = cwd;
  return { tool: { name: "shell", kind: "execute", argKinds }, args, risk: "medium" };
}

describe("rule keys: the indexed evaluation decides exactly as the linear scan", () => {
  it("on 60 generated policies of 20–300 rules and 40 generated calls each", async () => {
    let compared = 0;
    let skipped = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const gen = generator(seed);
      const size = 20 + Math.floor(gen.rand() * 280);
      const policy = await parsePolicyObject(
        { default: gen.pick(DECISIONS), rules: Array.from({ length: size }, gen.rule) },
        `seed-${seed}`,
        { plugins: [kind] },
      );
      for (let c = 0; c < 40; c++) {
        const text = gen.command();
        const cwd = gen.rand() < 0.5 ? gen.pick(["sub/dir", "/tmp"]) : undefined;
        const call = await prepared(text, cwd, { command: "command" });
        const fast = evaluate(policy, call);
        const slow = evaluate(policy, call, linear);
        expect(fast, `seed ${seed}, command ${JSON.stringify(text)}`).toEqual(slow);
        const considered =
          policy.index.keyedFor("shell", "execute", call.tool.argKinds).specific.select(call, Symbol())
            .length +
          policy.index.keyedFor("shell", "execute", call.tool.argKinds).any.select(call, Symbol()).length;
        const all = policy.index.candidates("shell");
        skipped += all.specific.length + all.any.length - considered;
        compared++;
      }
    }
    expect(compared).toBe(2400);
    // The index must actually leave rules out, or this test compares the linear scan with itself.
    expect(skipped).toBeGreaterThan(10_000);
  });

  it("a tool whose `command` argument is plain text is not bucketed by the command kind's keys", async () => {
    const policy = await parsePolicyObject(
      {
        default: "ask",
        rules: [
          { tool: ["*"], decision: "deny", when: { command: { prefix: "rm" } } },
          { tool: ["*"], decision: "allow", when: { command: { prefix: "git" } } },
        ],
      },
      "text-kind",
      { plugins: [kind] },
    );
    // As text, `prefix` is a string prefix: "rmdir x" starts with "rm" (as a command it would not).
    const call: PreparedCall = {
      tool: { name: "t", kind: "other" },
      args: { command: "rmdir x" },
      risk: "low",
    };
    expect(evaluate(policy, call).decision).toBe("deny");
    expect(evaluate(policy, call)).toEqual(evaluate(policy, call, linear));
  });

  it("rules on commands made only of script sub-commands, or of none, are still decided as linearly", async () => {
    const gen = generator(99);
    const policy = await parsePolicyObject(
      { default: "ask", rules: Array.from({ length: 200 }, gen.rule) },
      "edge",
      { plugins: [kind] },
    );
    for (const text of [
      "",
      "   ",
      "# only a comment",
      "$(git status)",
      "awk 'BEGIN{system(\"rm -rf x\")}'",
    ]) {
      const call = await prepared(text, undefined, { command: "command" });
      expect(evaluate(policy, call), JSON.stringify(text)).toEqual(evaluate(policy, call, linear));
    }
  });
});

describe("rule keys on paths: the indexed evaluation decides exactly as the linear scan", () => {
  const pathKind = createPathKind(async () => undefined) as ArgKindPlugin;
  const DIRS = ["src", "Src", "pkg7", "docs", ".github", "a", "secrets", "SECRETS", "lib"];
  const SUBS = ["src", "lib", "x", "a.ts", "b.md", "deep/c.js", "Key.PEM"];
  const gen = (seed: number) => {
    const rand = seededRandom(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const globOperand = (): string =>
      pick([
        () => `${pick(DIRS)}/**`,
        () => `/${pick(DIRS)}/${pick(SUBS)}`,
        () => `${pick(DIRS)}/**/*.ts`,
        () => `${pick(DIRS)}/`,
        () => `*.md`,
        () => `**/${pick(DIRS)}/**`,
        () => `!${pick(DIRS)}/${pick(SUBS)}`,
        () => `${pick(DIRS)}*/x`,
        () => `${pick(DIRS)}`,
      ])();
    const condition = (): Record<string, unknown> => {
      switch (Math.floor(rand() * 5)) {
        case 0:
          return { glob: Array.from({ length: 1 + Math.floor(rand() * 3) }, globOperand) };
        case 1:
          return { prefix: pick([pick(DIRS), `./${pick(DIRS)}/src`, "/w", "", `${pick(DIRS)}/`]) };
        case 2:
          return { equals: `${pick(DIRS)}/${pick(SUBS)}` };
        case 3:
          return { oneOf: [`${pick(DIRS)}/${pick(SUBS)}`, pick(DIRS)] };
        default:
          return { contains: pick(SUBS) };
      }
    };
    const rule = (): Record<string, unknown> => ({
      tool: pick([["read_file"], ["read_file"], ["*"], ["read_*"]]),
      decision: pick(DECISIONS),
      ...(rand() < 0.9 ? { when: { path: condition() } } : {}),
    });
    const single = (): { ok: true; relative: string; canonical: string } | { ok: false; reason: string } => {
      if (rand() < 0.05) return { ok: false, reason: "outside" };
      const relative = rand() < 0.05 ? "" : `${pick(DIRS)}/${pick(SUBS)}`;
      return { ok: true, relative, canonical: relative === "" ? "/w" : `/w/${relative}` };
    };
    const value = () =>
      rand() < 0.2 ? { ok: true, list: Array.from({ length: Math.floor(rand() * 3) }, single) } : single();
    return { rand, rule, value };
  };

  it("on 60 generated policies of 20–300 path rules and 40 generated paths each", async () => {
    let compared = 0;
    let skipped = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const g = gen(seed);
      const size = 20 + Math.floor(g.rand() * 280);
      const policy = await parsePolicyObject(
        { default: pick3(g.rand), rules: Array.from({ length: size }, g.rule) },
        `path-seed-${seed}`,
        { plugins: [pathKind] },
      );
      for (let c = 0; c < 40; c++) {
        const path = g.value();
        const call: PreparedCall = {
          tool: { name: "read_file", kind: "read", argKinds: { path: "path" } },
          args: { path },
          risk: "low",
        };
        const fast = evaluate(policy, call);
        const slow = evaluate(policy, call, linear);
        expect(fast, `seed ${seed}, path ${JSON.stringify(path)}`).toEqual(slow);
        const keyed = policy.index.keyedFor("read_file", "read", call.tool.argKinds);
        const considered =
          keyed.specific.select(call, Symbol()).length + keyed.any.select(call, Symbol()).length;
        const all = policy.index.candidates("read_file");
        skipped += all.specific.length + all.any.length - considered;
        compared++;
      }
    }
    expect(compared).toBe(2400);
    expect(skipped).toBeGreaterThan(10_000);
  });
});

function pick3(rand: () => number): Decision {
  return DECISIONS[Math.floor(rand() * DECISIONS.length)]!;
}
