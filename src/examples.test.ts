import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./test-support/cli.js";

describe("README example", () => {
  it("examples/library.mjs runs against the built package and shows the gate at work", () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, "examples", "library.mjs")], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      'read_file: allow "hello from toolgate\\n"',
      "word_count: allow 3",
      "shell: deny denied_by_policy shell was denied: no shell in this example",
      "bad args: invalid_params invalid arguments for read_file: parameter 'path' must be a string",
      expect.stringMatching(
        /^openai schema names: edit_file,glob,grep,ls,memory,read_file,read_many_files,read_untrusted,shell,/,
      ),
      "",
    ]);
  });
});
