/** `toolgate todos` as a plain function: output, JSON, exit codes, errors. */
import { describe, expect, it } from "vitest";
import { stateCommandHarness } from "../../test-support/state-command.js";
import { runTodosCommand } from "./todos.js";

const todos = stateCommandHarness(runTodosCommand).run;

describe("toolgate todos", () => {
  it("adds, updates, completes, removes and lists", async () => {
    expect(await todos(["list"])).toEqual({ code: 0, stdout: "no todos\n", stderr: "" });
    expect((await todos(["list"], true)).stdout).toBe("[]\n");
    expect(await todos(["add", "write", "the", "tests"])).toEqual({
      code: 0,
      stdout: "added todo 1: write the tests\n",
      stderr: "",
    });
    await todos(["add", "ship", "--status", "in_progress"]);
    expect((await todos(["update", "1", "--status", "in_progress"])).stdout).toBe(
      "[~] 1  write the tests\ntodo 2 was in progress and is now pending\n",
    );
    expect((await todos(["update", "2", "--text", "ship it"])).stdout).toBe("[ ] 2  ship it\n");
    expect((await todos(["complete", "1"])).stdout).toBe("[x] 1  write the tests\n");
    expect((await todos(["list"])).stdout).toBe("[x] 1  write the tests\n[ ] 2  ship it\n");
    expect((await todos(["remove", "2"])).stdout).toBe("removed todo 2: ship it\n");
    expect((await todos(["list"])).stdout).toBe("[x] 1  write the tests\n");
  });

  it("prints JSON with --json", async () => {
    const added = JSON.parse((await todos(["add", "a"], true)).stdout);
    expect(added).toEqual({ item: expect.objectContaining({ id: "1", text: "a", status: "pending" }) });
    const done = JSON.parse((await todos(["complete", "1"], true)).stdout);
    expect(done).toMatchObject({ id: "1", status: "completed" });
    const list = JSON.parse((await todos(["list"], true)).stdout);
    expect(list).toEqual([expect.objectContaining({ id: "1", status: "completed" })]);
  });

  it("exits 1 naming an unknown id", async () => {
    for (const argv of [
      ["complete", "7"],
      ["remove", "7"],
      ["update", "7", "--text", "x"],
    ]) {
      expect(await todos(argv)).toEqual({ code: 1, stdout: "", stderr: 'toolgate: no todo with id "7"\n' });
    }
  });

  const usage: [string, string[], string][] = [
    ["no subcommand", [], "usage: toolgate todos"],
    ["add without text", ["add"], "usage: toolgate todos"],
    ["update with nothing", ["update", "1"], "usage: toolgate todos"],
    ["complete without id", ["complete"], "usage: toolgate todos"],
    [
      "bad status",
      ["add", "x", "--status", "done"],
      "toolgate: --status must be one of pending, in_progress, completed",
    ],
    ["blank text", ["add", " "], "toolgate: todo text must be a non-empty string\n"],
  ];
  it.each(usage)("exits 2 for %s", async (_note, argv, message) => {
    const result = await todos(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
