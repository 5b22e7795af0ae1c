/**
 * The `toolgate/policy` subpath used alone: a rule whose condition needs an argument kind the policy was
 * loaded without is refused — at load when it can be known (an operator only that kind has, or `tools`
 * given), else when a call reaches it — naming the plug-in to pass. Never a rule that silently does not match.
 * Rows: testdata/missing-kinds.json, one per operator of each plug-in kind.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  createCommandKind,
  createPathKind,
  createUrlKind,
  PolicyEngine,
  parsePolicy,
} from "../api/policy.js";
import type { ArgKind, Tool } from "../core/index.js";
import { ConfigError, defineTool, okResult } from "../core/index.js";
import type { ArgKindPlugin } from "./types.js";

interface Row {
  kind: Exclude<ArgKind, "text">;
  operator: string;
  operand: unknown;
  value: string;
  without_tools: "load_error" | "call_denied";
}

const rows = (
  JSON.parse(readFileSync(new URL("./testdata/missing-kinds.json", import.meta.url), "utf8")) as {
    rows: Row[];
  }
).rows;

const plugins: Record<Row["kind"], ArgKindPlugin> = {
  path: createPathKind(async (raw) => ({ relative: raw, canonical: `/w/${raw}` })),
  command: createCommandKind(),
  url: createUrlKind(),
};

const FACTORY = {
  path: "createPathKind(canonicalize)",
  command: "createCommandKind()",
  url: "createUrlKind()",
};

function toolFor(kind: ArgKind): Tool {
  return defineTool({
    name: "t",
    description: "a host tool with one argument of the row's kind",
    parameters: { type: "object", properties: { a: { type: "string" } } },
    kind: "other",
    risk: "low",
    argKinds: { a: kind },
    run: async () => okResult("ran"),
  }) as Tool;
}

function policyText(row: Row, decision: "allow" | "deny"): string {
  return `default = "ask"\n[[rules]]\ntool = "t"\ndecision = "${decision}"\nwhen.a = { ${row.operator} = ${JSON.stringify(row.operand)} }\n`;
}

async function loadError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

async function decide(policyOptions: { plugins?: ArgKindPlugin[] }, row: Row, decision: "allow" | "deny") {
  const policy = await parsePolicy(policyText(row, decision), "p.toml", policyOptions);
  const engine = new PolicyEngine({ policy, roots: ["/w"] });
  const tool = toolFor(row.kind);
  const args = { a: row.value };
  return engine.decide({ tool, invocation: tool.build(args), args, risk: "low" });
}

describe("a rule needing a kind the policy was loaded without", () => {
  it("has a row for every operator of every plug-in kind", () => {
    for (const [kind, plugin] of Object.entries(plugins)) {
      const covered = rows.filter((r) => r.kind === kind).map((r) => r.operator);
      expect(covered.sort(), kind).toEqual(Object.keys(plugin.operators).sort());
    }
  });

  for (const row of rows) {
    const name = `${row.kind} ${row.operator}`;
    const plugin = `the policy was loaded without the ${row.kind} plug-in (pass ${FACTORY[row.kind]} in plugins)`;

    it(`${name}: with the plug-in, the rule loads and matches the row's value`, async () => {
      const got = await decide({ plugins: [plugins[row.kind]] }, row, "deny");
      expect(got.decision, got.reason).toBe("deny");
      expect(got.rule?.id).toBe("p.toml#1");
    });

    it(`${name}: with the tools given, a load error naming the plug-in`, async () => {
      const message = await loadError(
        parsePolicy(policyText(row, "allow"), "p.toml", { tools: [toolFor(row.kind)] }),
      );
      expect(message).toContain(plugin);
    });

    if (row.without_tools === "load_error") {
      it(`${name}: alone, a load error naming the plug-in (no other kind has the operator)`, async () => {
        const message = await loadError(parsePolicy(policyText(row, "deny"), "p.toml"));
        expect(message).toBe(
          `p.toml:5: rule #1 (tool "t"): when.a.${row.operator}: operator "${row.operator}" belongs to the ${row.kind} argument kind, and ${plugin}`,
        );
      });
    } else {
      it(`${name}: alone, the rule loads and every call it reads is denied naming the plug-in`, async () => {
        for (const decision of ["allow", "deny"] as const) {
          const got = await decide({}, row, decision);
          expect(got.decision).toBe("deny");
          expect(got.rule).toBeUndefined();
          expect(got.reason).toBe(
            `the policy cannot decide this call: argument "a" of tool "t" is a ${row.kind} argument, and ${plugin}; denied (fail closed)`,
          );
        }
      });
    }
  }
});
