import { describe, expect, it } from "vitest";
import type { ArgKind, Decision } from "../core/index.js";
import { evaluate } from "./evaluate.js";
import { parsePolicyObject } from "./load.js";
import type { PolicyRecorder, PreparedCall } from "./model.js";
import { createCommandKind } from "./shell/index.js";
import type { ArgKindPlugin } from "./types.js";

/** Deterministic pseudo-random numbers (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROGRAMS = ["git", "npm", "ls", "rm", "sed", "find", "awk", "cat", "echo", "node"];
const ARGS = ["status", "log", "-la", "-rf", "test", "run", "-i", "x", "--force", "-delete", "s/a/b/", "."];
const DECISIONS: Decision[] = ["allow", "ask", "deny"];
const kind = createCommandKind() as ArgKindPlugin;
/** The linear scan: with a recorder, evaluate visits every candidate rule. */
const linear: PolicyRecorder = { record: () => undefined };

function generator(seed: number) {
  const rand = random(seed);
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
