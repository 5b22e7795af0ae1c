/**
 * `toolgate policy check` and `toolgate call` agree (issue 30): a check runs the same resolve, build and
 * decide, with the tool's own precheck of what the call targets, so a path the workspace refuses is
 * `path_not_allowed` in both — never `allow` in the check and a refusal in the call. Compared over the file
 * tools' adversarial corpus (testdata/adversarial-paths.json) plus ordinary calls, through the library
 * (`gate.check` against `gate.execute`, under a policy allowing everything and under the built-in default)
 * and through the built binary (`policy check --json` against `call --batch - --yes --json`).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckResult } from "../core/index.js";
import type { ToolCall } from "../index.js";
import { toolgate } from "../test-support/cli.js";
import {
  ALLOW_ALL,
  adversarialLayout,
  adversarialPaths,
  approveAll,
  jsonLines,
  type Layout,
  openGate,
} from "./fixtures.js";

let layout: Layout;
let calls: ToolCall[];
let ordinary: ToolCall[];

beforeAll(async () => {
  layout = await adversarialLayout(adversarialPaths().inside);
  const corpus = adversarialPaths(layout);
  ordinary = [
    { name: "read_file", args: { path: "real.txt" } },
    { name: "read_file", args: { path: "missing.txt" } },
    { name: "write_file", args: { path: "fresh/new.txt", content: "x" } },
    { name: "write_file", args: { path: "real.txt", content: "x" } },
    { name: "ls", args: {} },
    { name: "grep", args: { pattern: "real", path: "docs" } },
    { name: "shell", args: { command: "true", cwd: "docs" } },
    { name: "read_file", args: { path: 42 } },
  ];
  calls = [
    ...corpus.paths.flatMap(([, path]) => [
      { name: "read_file", args: { path } },
      { name: "write_file", args: { path, content: "pwned\n", overwrite: true } },
    ]),
    ...corpus.editRefused.map((path) => ({
      name: "edit_file",
      args: { path, edits: [{ oldText: "e", newText: "PWNED" }] },
    })),
    ...corpus.otherToolsRefused.map(([name, args]) => ({ name, args })),
    ...corpus.protectedExtra.map((path) => ({ name: "write_file", args: { path, content: "x" } })),
    ...ordinary,
  ];
});
afterAll(async () => {
  await layout?.cleanup();
});

/** The error types a check answers with itself, rather than with a decision. */
const CHECKED = new Set(["path_not_allowed", "invalid_params", "tool_not_found"]);

/** Why a check's answer and a call's result disagree, or undefined when they agree. */
function disagreement(
  check: CheckResult | { ok: false; error: { type: string } },
  result: { error?: { type: string } | null },
): string | undefined {
  const got = result.error?.type ?? "ok";
  if (!check.ok) return got === check.error.type ? undefined : `check ${check.error.type}, call ${got}`;
  const decision = check.decision.decision;
  if (decision === "deny") return got === "denied_by_policy" ? undefined : `check deny, call ${got}`;
  // Allowed (or asked, then approved): the call may still meet the file system (a missing file), but never
  // a refusal the check should have given.
  if (CHECKED.has(got) || got === "denied_by_policy") return `check ${decision}, call ${got}`;
  return undefined;
}

describe("policy check answers as call does", () => {
  it("through the library, under a policy allowing everything and under the built-in default", async () => {
    const failures: string[] = [];
    for (const options of [{ policyText: ALLOW_ALL }, { policy: false as const }]) {
      const gate = await openGate(layout.root, options);
      approveAll(gate);
      try {
        for (const call of calls) {
          const check = await gate.check(call);
          const result = await gate.execute(call);
          const why = disagreement(check, result);
          if (why) failures.push(`${JSON.stringify(call)}: ${why}`);
        }
      } finally {
        await gate.close();
      }
    }
    expect(failures).toEqual([]);
    // The corpus is mostly refusals: they must show in the check.
    const gate = await openGate(layout.root, { policyText: ALLOW_ALL });
    const refused = [];
    for (const call of calls) {
      const check = await gate.check(call);
      if (!check.ok && check.error.type === "path_not_allowed") refused.push(call);
    }
    await gate.close();
    expect(refused.length).toBeGreaterThan(60);
  });

  it("through the binary: policy check --json and call --batch --yes --json", async () => {
    const policy = join(layout.base, "allow-all.toml");
    await writeFile(policy, ALLOW_ALL);
    const global = ["--workspace", layout.root, "--policy", policy, "--json"];
    // Each check costs a Node start-up (seconds on a busy machine): every eighth call of the corpus and the
    // ordinary ones (the shell's run in a sandbox: its cwd checks are in the library comparison above).
    const subset = [...calls.filter((_c, i) => i % 8 === 0), ...ordinary].filter((c) => c.name !== "shell");
    const checks: { code: number | null; out: CheckResult | { ok: false; error: { type: string } } }[] = [];
    for (const call of subset) {
      const r = await toolgate([...global, "policy", "check", call.name, JSON.stringify(call.args)]);
      const parsed = JSON.parse(r.stdout) as { error?: { type: string }; decision?: string };
      checks.push({
        code: r.code,
        out: parsed.error
          ? { ok: false, error: parsed.error }
          : ({ ok: true, decision: parsed } as unknown as CheckResult),
      });
    }
    const input = subset.map((c) => JSON.stringify({ name: c.name, args: c.args })).join("\n");
    const batch = await toolgate([...global, "call", "--batch", "-", "--yes"], { input });
    const results = jsonLines(batch.stdout);
    expect(results).toHaveLength(subset.length);
    const failures: string[] = [];
    subset.forEach((call, i) => {
      const why = disagreement(checks[i]!.out, results[i]!);
      if (why) failures.push(`${JSON.stringify(call)}: ${why}`);
      // The same refusal, the same exit code: path_not_allowed is 1, bad arguments 2.
      const error = results[i]!.error?.type;
      if (error === "path_not_allowed" && checks[i]!.code !== 1)
        failures.push(`${JSON.stringify(call)}: policy check exited ${checks[i]!.code}`);
    });
    expect(failures).toEqual([]);
    expect(await layout.outsideSnapshot()).toMatchObject({ "(dangling target exists)": "false" });
  }, 600_000);
});
