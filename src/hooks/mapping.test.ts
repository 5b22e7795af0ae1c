/**
 * The name and argument mapping (`host-tools.json`): every built-in tool's arguments, built from its schema,
 * survive the trip to each host's `tool_input` and back; the names a script's matcher sees are the hosts' own;
 * a bad table fails to load, naming the entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema, Tool } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import {
  fromHost,
  HOST_FORMATS,
  HOST_TABLE,
  type HostFormat,
  hostNames,
  loadHostTable,
  toHost,
} from "./mapping.js";
import { type PatchView, parsePatch, renderPatch } from "./patch.js";
import { matcherMatches } from "./sources.js";

const HOSTS = HOST_FORMATS;

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
          expect(hostNames(host, tool.name, args)).toEqual([there.name, ...(there.aliases ?? [])]);
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

  it("shows Codex's scripts shell commands as Bash and file changes as apply_patch's patch text", () => {
    expect(toHost("codex", "shell", { command: "ls" })).toEqual({ name: "Bash", input: { command: "ls" } });
    expect(toHost("codex", "write_file", { path: ".env", content: "A=1\n", overwrite: true })).toEqual({
      name: "apply_patch",
      aliases: ["Write", "Edit"],
      input: { command: "*** Begin Patch\n*** Add File: .env\n+A=1\n+\n*** End Patch\n", overwrite: true },
    });
    const edits = [
      { oldText: "a\nb", newText: "c" },
      { oldText: "d", newText: "", expectedReplacements: 2 },
    ];
    expect(toHost("codex", "edit_file", { path: "src/x.ts", edits })).toEqual({
      name: "apply_patch",
      aliases: ["Write", "Edit"],
      input: {
        command: "*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n-b\n+c\n@@\n-d\n+\n*** End Patch\n",
        edit_options: [{}, { expectedReplacements: 2 }],
      },
    });
    // MCP tools and tools Codex does not show its hooks keep their own names.
    expect(toHost("codex", "mcp__github__create_issue", { title: "t" }).name).toBe(
      "mcp__github__create_issue",
    );
    expect(toHost("codex", "read_file", { path: "a" })).toEqual({ name: "read_file", input: { path: "a" } });
  });

  it("reads back exactly the texts a patch shows, and refuses what is not such a patch", () => {
    for (const content of ["", "\n", "one", "one\n", "a\n\nb\n", "+x\n-y\n@@\n*** End Patch"]) {
      const view = { kind: "add", path: "f", content } as const;
      expect(parsePatch(renderPatch(view))).toEqual(view);
      const edit: PatchView = {
        kind: "update",
        path: "f",
        edits: [{ oldText: content, newText: `${content}!` }],
      };
      expect(parsePatch(renderPatch(edit))).toEqual(edit);
    }
    expect(() => parsePatch("rm -rf /")).toThrow("not a patch: no Begin/End Patch lines");
    expect(() => parsePatch("*** Begin Patch\n*** Delete File: a\n*** End Patch\n")).toThrow(
      'not a patch of one file: "*** Delete File: a"',
    );
    expect(fromHost("codex", "apply_patch", { command: "ls" })).toEqual({
      name: "apply_patch",
      input: { command: "ls" },
    });
  });

  it("matches Codex's matchers as Codex does: exact names, aliases, regexes that may match part of a name", () => {
    const write = hostNames("codex", "write_file", { path: "a", content: "" });
    expect(write).toEqual(["apply_patch", "Write", "Edit"]);
    expect(matcherMatches("Edit|Write", write, "codex")).toBe(true);
    expect(matcherMatches("apply_patch", write, "codex")).toBe(true);
    expect(matcherMatches("Bash", write, "codex")).toBe(false);
    expect(matcherMatches("Bash", ["BashOutput"], "codex")).toBe(false);
    expect(matcherMatches("^Bash", ["BashOutput"], "codex")).toBe(true);
    expect(matcherMatches("mcp__github__.*", ["mcp__github__create_issue"], "codex")).toBe(true);
    expect(matcherMatches("*", ["anything"], "codex")).toBe(true);
    // Claude Code's and gemini-cli's regexes are whole-name.
    expect(matcherMatches("^Bash", ["BashOutput"], "claude")).toBe(false);
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
    const patches = (b: object) => ({
      claude: {},
      gemini: {},
      codex: { write_file: { name: "apply_patch", patch: "add", fields: {} }, edit_file: b },
    });
    expect(() => loadHostTable(patches({ name: "apply_patch", fields: {} }))).toThrow(
      'host-tools.json: codex.edit_file: "apply_patch" is taken',
    );
    expect(() => loadHostTable(patches({ name: "apply_patch", patch: "add", fields: {} }))).toThrow(
      'host-tools.json: codex.edit_file: "apply_patch" is taken',
    );
    expect(() => loadHostTable(patches({ name: "x", patch: "move", fields: {} }))).toThrow(
      'codex.edit_file.patch must be "add" or "update"',
    );
  });
});
