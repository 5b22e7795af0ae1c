import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, toolgate } from "../test-support/cli.js";

describe("toolgate --version", () => {
  it("prints package.json's version, as --version and -V, with exit 0", async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-V"]) {
      const run = await toolgate([flag]);
      expect({ flag, ...run }).toEqual({ flag, code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });

  it("is listed in --help", async () => {
    const run = await toolgate(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ {2}-V, --version +prints the version\n/);
    expect(run.stdout).toContain("toolgate init [--force]");
  });
});
