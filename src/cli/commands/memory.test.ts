/** `toolgate memory` as a plain function: output, JSON, exit codes, scopes, errors. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stateCommandHarness } from "../../test-support/state-command.js";
import { runMemoryCommand } from "./memory.js";

const harness = stateCommandHarness(runMemoryCommand);
const memory = harness.run;
const root = harness.root;
const userDir = harness.userDir;

describe("toolgate memory", () => {
  it("sets, gets, lists and deletes", async () => {
    expect(await memory(["set", "build", "npm run build"])).toEqual({
      code: 0,
      stdout: 'saved "build" in project memory\n',
      stderr: "",
    });
    await memory(["set", "notes", "line one\nline two"]);
    expect(await memory(["get", "build"])).toEqual({ code: 0, stdout: "npm run build\n", stderr: "" });
    expect((await memory(["list"])).stdout).toBe("build  npm run build\nnotes  line one⏎line two\n");
    expect(await memory(["delete", "build"])).toEqual({
      code: 0,
      stdout: 'deleted "build" from project memory\n',
      stderr: "",
    });
    const file = JSON.parse(await readFile(join(root(), ".toolgate", "state", "memory.json"), "utf8"));
    expect(Object.keys(file.entries)).toEqual(["notes"]);
  });

  it("prints JSON with --json", async () => {
    expect((await memory(["set", "a", "1"], true)).stdout).toBe(
      '{"key":"a","scope":"project","saved":true}\n',
    );
    expect((await memory(["get", "a"], true)).stdout).toBe(
      '{"key":"a","scope":"project","found":true,"value":"1"}\n',
    );
    const list = JSON.parse((await memory(["list"], true)).stdout);
    expect(list).toEqual([{ key: "a", value: "1", updatedAt: expect.any(String) }]);
    expect((await memory(["delete", "a"], true)).stdout).toBe(
      '{"key":"a","scope":"project","deleted":true}\n',
    );
    expect(await memory(["get", "a"], true)).toEqual({
      code: 1,
      stdout: '{"key":"a","scope":"project","found":false}\n',
      stderr: 'toolgate: not found: no value is stored under "a" in project memory\n',
    });
    expect((await memory(["list"], true)).stdout).toBe("[]\n");
    // An empty list says so in text (issue #11: it printed nothing).
    expect(await memory(["list"])).toEqual({
      code: 0,
      stdout: "no memories in project memory\n",
      stderr: "",
    });
  });

  it("uses the user scope with --scope user", async () => {
    await memory(["set", "k", "user value", "--scope", "user"]);
    expect((await memory(["get", "k"])).code).toBe(1);
    expect((await memory(["get", "--scope", "user", "k"])).stdout).toBe("user value\n");
    expect(JSON.parse(await readFile(join(userDir(), "memory.json"), "utf8")).entries.k.value).toBe(
      "user value",
    );
  });

  it("exits 1 for a missing key", async () => {
    expect(await memory(["get", "nope"])).toEqual({
      code: 1,
      stdout: "",
      stderr: 'toolgate: not found: no value is stored under "nope" in project memory\n',
    });
    expect((await memory(["delete", "nope"])).code).toBe(1);
  });

  const usage: [string, string[], string][] = [
    ["no subcommand", [], "usage: toolgate memory"],
    ["unknown subcommand", ["drop", "a"], "usage: toolgate memory"],
    ["prototype name as subcommand", ["constructor"], "usage: toolgate memory"],
    ["missing value", ["set", "a"], "usage: toolgate memory"],
    ["extra argument", ["get", "a", "b"], "usage: toolgate memory"],
    [
      "unknown flag",
      ["list", "--all"],
      'toolgate: unknown option --all for "toolgate memory" (see toolgate memory --help)',
    ],
    [
      "bad scope",
      ["list", "--scope", "global"],
      'toolgate: --scope must be "project" or "user", not "global"',
    ],
    [
      "bad key",
      ["set", "a b", "v"],
      'toolgate: memory key "a b" may contain only letters, digits and _ . : / -\n',
    ],
  ];
  it.each(usage)("exits 2 for %s", async (_note, argv, message) => {
    const result = await memory(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(message);
  });

  it("warns about a corrupt store on stderr and keeps the file aside", async () => {
    const stateDir = join(root(), ".toolgate", "state");
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, "memory.json"), "garbage");
    const result = await memory(["list"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^toolgate: warning: state file .*memory\.json could not be read \(not valid JSON.*\); moved it to .*memory\.json\.corrupt-.* and started empty\n$/,
    );
  });

  it("exits 1 with the store's message when the file system refuses", async () => {
    await writeFile(join(root(), ".toolgate"), "a file, not a directory");
    const result = await memory(["set", "a", "1"]);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `toolgate: could not create the state directory ${join(root(), ".toolgate", "state")}: a parent path is not a directory (ENOTDIR)\n`,
    });
  });
});
