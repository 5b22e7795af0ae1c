/**
 * The policy file of DESIGN §6, loaded with the real path, command and url plug-ins and decided through the
 * PolicyEngine against real files in a temp directory: the format users rely on, end to end.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArgKind, RiskLevel, Tool, ToolKind } from "../core/index.js";
import { defineTool, okResult } from "../core/index.js";
import { createPathKind } from "./conditions/path.js";
import { createUrlKind } from "./conditions/url.js";
import { PolicyEngine } from "./engine.js";
import { parsePolicy } from "./load.js";
import { createCommandKind } from "./shell/index.js";
import type { ArgKindPlugin } from "./types.js";

const DESIGN_POLICY = `
default = "ask"                      # decision when no rule matches: "allow" | "ask" | "deny"

[[rules]]
tool = "read_file"                   # exact name, glob ("mcp__github__*"), "*", or an array of these
decision = "allow"

[[rules]]
tool = ["write_file", "edit_file"]
decision = "deny"
when.path = { glob = "secrets/**" }  # condition on argument \`path\`; several conditions must all hold
message = "secrets are read-only"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["git status", "ls", "npm test"] }   # command words, every sub-command

[[rules]]
tool = "web_fetch"
decision = "allow"
when.url = { host = ["docs.python.org", "*.mozilla.org"] }

[[rules]]
tool = "*"
decision = "ask"
risk = "high"                        # optional: overrides the tool's risk for matching calls
`;

/** A canonicalizer like the workspace's: realpath of the nearest existing ancestor, inside a root. */
async function canonicalize(raw: string, roots: readonly string[]) {
  const root = roots[0]!;
  const absolute = isAbsolute(raw) ? raw : resolve(root, raw);
  let existing = absolute;
  let rest = "";
  for (;;) {
    try {
      const real = await realpath(existing);
      const canonical = rest ? join(real, rest) : real;
      const rel = relative(root, canonical);
      if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
      return { canonical, relative: rel.split(sep).join("/") };
    } catch {
      const parent = resolve(existing, "..");
      if (parent === existing) return undefined;
      rest = rest ? join(existing.slice(parent.length + 1), rest) : existing.slice(parent.length + 1);
      existing = parent;
    }
  }
}

function tool(name: string, kind: ToolKind, risk: RiskLevel, argKinds: Record<string, ArgKind>): Tool {
  const properties = Object.fromEntries(Object.keys(argKinds).map((k) => [k, { type: "string" }]));
  return defineTool({
    name,
    description: name,
    parameters: { type: "object", properties },
    kind,
    risk,
    argKinds,
    run: async () => okResult(""),
  }) as Tool;
}

const tools = [
  tool("read_file", "read", "low", { path: "path" }),
  tool("write_file", "edit", "medium", { path: "path", content: "text" }),
  tool("edit_file", "edit", "medium", { path: "path" }),
  tool("shell", "execute", "high", { command: "command" }),
  tool("web_fetch", "fetch", "medium", { url: "url" }),
];

let root: string;
let engine: PolicyEngine;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-design-")));
  await mkdir(join(root, "secrets"));
  await writeFile(join(root, "secrets", "key.pem"), "k");
  const plugins = [
    createPathKind(canonicalize) as ArgKindPlugin,
    createCommandKind() as ArgKindPlugin,
    createUrlKind(),
  ];
  const policy = await parsePolicy(DESIGN_POLICY, join(root, ".toolgate", "policy.toml"), {
    plugins,
    tools,
    roots: [root],
  });
  engine = new PolicyEngine({ policy, roots: [root] });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function decide(name: string, args: Record<string, unknown>) {
  const t = tools.find((x) => x.name === name)!;
  return engine.decide({ tool: t, invocation: t.build(args), args, risk: t.risk });
}

describe("the DESIGN §6 policy file", () => {
  const rows: [
    note: string,
    tool: string,
    args: Record<string, unknown>,
    decision: string,
    rule: string,
    risk?: RiskLevel,
  ][] = [
    ["read_file is allowed", "read_file", { path: "README.md" }, "allow", "policy.toml#1"],
    [
      "writing under secrets/ is denied",
      "write_file",
      { path: "secrets/key.pem", content: "x" },
      "deny",
      "policy.toml#2",
    ],
    ["…also through ./ and ..", "edit_file", { path: "./src/../secrets/key.pem" }, "deny", "policy.toml#2"],
    [
      "writing elsewhere falls to the * ask",
      "write_file",
      { path: "src/a.ts", content: "x" },
      "ask",
      "policy.toml#5",
      "high",
    ],
    ["git status is allowed", "shell", { command: "git status" }, "allow", "policy.toml#3"],
    ["every sub-command must match", "shell", { command: "git status && ls -la" }, "allow", "policy.toml#3"],
    [
      "a sub-command that does not match falls to the * ask",
      "shell",
      { command: "git status; rm -rf /" },
      "ask",
      "policy.toml#5",
      "high",
    ],
    [
      "a listed host is allowed",
      "web_fetch",
      { url: "https://docs.python.org/3/" },
      "allow",
      "policy.toml#4",
    ],
    [
      "a host under a wildcard is allowed",
      "web_fetch",
      { url: "https://developer.mozilla.org/en-US/" },
      "allow",
      "policy.toml#4",
    ],
    [
      "a look-alike host is not",
      "web_fetch",
      { url: "https://docs.python.org.evil.example/" },
      "ask",
      "policy.toml#5",
      "high",
    ],
  ];
  for (const [note, name, args, decision, rule, risk] of rows) {
    it(note, async () => {
      const got = await decide(name, args);
      expect(got.decision).toBe(decision);
      expect(got.rule?.id).toBe(rule);
      if (risk) expect(got.risk).toBe(risk);
      if (decision === "deny") expect(got.message).toBe("secrets are read-only");
    });
  }

  it("refuses an operator that does not fit the argument's kind (host on a path)", async () => {
    const plugins = [
      createPathKind(canonicalize) as ArgKindPlugin,
      createCommandKind() as ArgKindPlugin,
      createUrlKind(),
    ];
    await expect(
      parsePolicy(
        '[[rules]]\ntool = "read_file"\ndecision = "allow"\nwhen.path = { host = "example.com" }',
        "policy.toml",
        {
          plugins,
          tools,
          roots: [root],
        },
      ),
    ).rejects.toThrow(
      'policy.toml:1: rule #1 (tool "read_file"): when.path.host: operator "host" does not fit argument "path" of tool "read_file" (a path argument)',
    );
  });
});
