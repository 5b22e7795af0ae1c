/**
 * The policy corpus (STYLE §8): each `testdata/<topic>/cases.json` case becomes a vitest case named by its
 * note. A case loads `policy.toml` (or the file it names) with the tools of `testdata/tools.json`, then
 * decides one call through the `PolicyEngine`, or expects loading to fail with a pinned message.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ArgKind, RiskLevel, Tool, ToolKind } from "../core/index.js";
import { ConfigError, defineTool, okResult } from "../core/index.js";
import { createUrlKind } from "./conditions/url.js";
import { PolicyEngine } from "./engine.js";
import { lintPolicy } from "./lint.js";
import { parsePolicy } from "./load.js";
import { standInCommandPlugin, standInUrlPlugin } from "./testdata/plugins.js";
import type { ArgKindPlugin } from "./types.js";

interface ToolEntry {
  kind: ToolKind;
  risk: RiskLevel;
  params: string[];
  argKinds?: Record<string, ArgKind>;
}

interface Case {
  note: string;
  policy?: string;
  tool?: string;
  args?: Record<string, unknown>;
  /** The call's risk; default: the tool's. */
  risk?: RiskLevel;
  want: {
    decision?: string;
    rule?: string | null;
    risk?: RiskLevel;
    reason?: string;
    message?: string;
    matched?: string[];
    error?: string;
    /** The lint messages for the policy against testdata/tools.json (no call is decided). */
    lint?: string[];
  };
}

const root = join(import.meta.dirname, "testdata");
const entries = JSON.parse(readFileSync(join(root, "tools.json"), "utf8")) as Record<string, ToolEntry>;
const plugins: ArgKindPlugin[] = [standInUrlPlugin as ArgKindPlugin, standInCommandPlugin as ArgKindPlugin];
/** Topics about a real plug-in's semantics use it instead of the stand-in. */
const TOPIC_PLUGINS: Record<string, ArgKindPlugin[]> = {
  "url-prefix": [createUrlKind(), standInCommandPlugin as ArgKindPlugin],
};

function makeTool(name: string): Tool {
  const entry = entries[name];
  if (!entry) throw new Error(`case names tool ${name}, which testdata/tools.json does not declare`);
  const properties = Object.fromEntries(entry.params.map((p) => [p, {}]));
  return defineTool({
    name,
    description: `test tool ${name}`,
    parameters: { type: "object", properties },
    kind: entry.kind,
    risk: entry.risk,
    ...(entry.argKinds ? { argKinds: entry.argKinds } : {}),
    run: async () => okResult("unused"),
  }) as Tool;
}

const tools = Object.keys(entries).map(makeTool);

for (const topic of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  const cases = JSON.parse(readFileSync(join(root, topic.name, "cases.json"), "utf8")) as Case[];
  describe(`policy corpus: ${topic.name}`, () => {
    for (const c of cases) {
      it(c.note, async () => {
        const file = c.policy ?? "policy.toml";
        const text = readFileSync(join(root, topic.name, file), "utf8");
        const loading = parsePolicy(text, `${topic.name}/${file}`, {
          plugins: TOPIC_PLUGINS[topic.name] ?? plugins,
          tools,
          roots: [root],
        });
        if (c.want.error !== undefined) {
          const error = await loading.then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as ConfigError).message).toBe(c.want.error);
          return;
        }
        const policy = await loading;
        if (c.want.lint !== undefined) {
          expect(lintPolicy(policy, Object.keys(entries)).map((w) => w.message)).toEqual(c.want.lint);
          return;
        }
        const tool = makeTool(c.tool!);
        const args = c.args ?? {};
        const engine = new PolicyEngine({ policy, roots: [root] });
        const got = await engine.decide({
          tool,
          invocation: tool.build(args),
          args,
          risk: c.risk ?? tool.risk,
        });
        expect(got.decision).toBe(c.want.decision);
        if (c.want.rule !== undefined) expect(got.rule?.id ?? null).toBe(c.want.rule);
        if (c.want.risk !== undefined) expect(got.risk).toBe(c.want.risk);
        if (c.want.reason !== undefined) expect(got.reason).toBe(c.want.reason);
        if (c.want.message !== undefined) expect(got.message).toBe(c.want.message);
        if (c.want.matched !== undefined) expect(got.matched?.map((r) => r.id)).toEqual(c.want.matched);
      });
    }
  });
}
