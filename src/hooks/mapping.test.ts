/**
 * The name and argument mapping (`host-tools.json`): every built-in tool's arguments, built from its schema,
 * survive the trip to each host's `tool_input` and back; the names a script's matcher sees are the hosts' own;
 * a bad table fails to load, naming the entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema, Tool } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { fromHost, HOST_TABLE, type HostFormat, loadHostTable, toHost } from "./mapping.js";

const HOSTS: HostFormat[] = ["claude", "gemini"];

/** A value for every property of a schema, so each parameter is renamed (or kept) on the way. */
function sample(schema: JsonSchema, name: string, items = 1): unknown {
  const s = schema as {
    type?: string;
    enum?: unknown[];
    items?: JsonSchema;
    properties?: Record<string, JsonSchema>;
  };
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case "string":
      return `${name}-value`;
    case "integer":
    case "number":
      return 3;
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: items }, (_, i) => sample(s.items ?? { type: "string" }, `${name}${i}`));
    case "object":
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, k)]));
    default:
      return `${name}-value`;
  }
}

let gate: Toolgate;
let builtins: readonly Tool[];

beforeAll(async () => {
  gate = await createToolgate({ cwd: await tempWorkspace(), trustWorkspace: true, hooks: false });
  builtins = gate.registry.list();
});
afterAll(() => gate.close());

describe("host-tools.json", () => {
  it("names only built-in tools", () => {
    const names = new Set(builtins.map((t) => t.name));
    for (const host of HOSTS)
      for (const tool of Object.keys(HOST_TABLE[host])) expect(names, `${host}.${tool}`).toContain(tool);
  });

  it("round-trips every built-in tool's arguments through each host (one edit and several)", () => {
    expect(builtins.length).toBeGreaterThan(10);
    for (const tool of builtins) {
      for (const items of [1, 2]) {
        const args = sample(tool.parameters, tool.name, items) as Record<string, unknown>;
        for (const host of HOSTS) {
          const there = toHost(host, tool.name, args);
          const back = fromHost(host, there.name, there.input);
          expect(back, `${host} ${tool.name} as ${there.name}`).toEqual({ name: tool.name, input: args });
        }
      }
    }
  });

  it("gives scripts the hosts' own names and fields", () => {
    const cases: [HostFormat, string, Record<string, unknown>, string, Record<string, unknown>][] = [
      ["claude", "shell", { command: "ls" }, "Bash", { command: "ls" }],
      ["claude", "write_file", { path: ".env", content: "x" }, "Write", { file_path: ".env", content: "x" }],
      [
        "claude",
        "edit_file",
        { path: "a.ts", edits: [{ oldText: "a", newText: "b" }] },
        "Edit",
        { file_path: "a.ts", old_string: "a", new_string: "b" },
      ],
      [
        "claude",
        "edit_file",
        {
          path: "a.ts",
          edits: [
            { oldText: "a", newText: "b" },
            { oldText: "c", newText: "d" },
          ],
        },
        "MultiEdit",
        {
          file_path: "a.ts",
          edits: [
            { old_string: "a", new_string: "b" },
            { old_string: "c", new_string: "d" },
          ],
        },
      ],
      ["claude", "mcp__github__create_issue", { title: "t" }, "mcp__github__create_issue", { title: "t" }],
      [
        "gemini",
        "shell",
        { command: "ls", cwd: "src" },
        "run_shell_command",
        { command: "ls", directory: "src" },
      ],
      ["gemini", "read_file", { path: "a" }, "read_file", { file_path: "a" }],
      [
        "gemini",
        "edit_file",
        { path: "a", edits: [{ oldText: "a", newText: "b" }] },
        "replace",
        { file_path: "a", old_string: "a", new_string: "b" },
      ],
      [
        "gemini",
        "grep",
        { pattern: "x", filePattern: "*.ts" },
        "search_file_content",
        { pattern: "x", include: "*.ts" },
      ],
    ];
    for (const [host, tool, args, name, input] of cases)
      expect(toHost(host, tool, args)).toEqual({ name, input });
  });

  it("refuses a table that could not be read back", () => {
    const two = { claude: { shell: { name: "Bash", fields: { a: "x", b: "x" } } }, gemini: {} };
    expect(() => loadHostTable(two)).toThrow(
      'host-tools.json: claude.shell.fields maps two parameters to "x"',
    );
    const taken = {
      claude: { shell: { name: "Bash", fields: {} }, ls: { name: "Bash", fields: {} } },
      gemini: {},
    };
    expect(() => loadHostTable(taken)).toThrow('host-tools.json: claude.ls: "Bash" is taken');
    expect(() => loadHostTable({ claude: {} })).toThrow('"gemini" must be a table of tools');
  });
});
