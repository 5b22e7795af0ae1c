/**
 * The WASM runtime seam: in a source checkout `tree-sitter.ts` is web-tree-sitter itself; in `dist/` the build
 * puts the package's own ES module there, with its runtime `.wasm` beside the bash grammar. Both must parse
 * bash into the tree the shell analysis reads.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../test-support/cli.js";
import * as seam from "./tree-sitter.js";

const require = createRequire(import.meta.url);
const DIST_SHELL = join(REPO_ROOT, "dist", "policy", "shell");

type Runtime = Pick<typeof seam, "Language" | "Parser">;

/** A parser for bash from `runtime`, its `.wasm` and the grammar file given. */
async function bashParser(runtime: Runtime, runtimeWasm: string, grammar: string) {
  await runtime.Parser.init({ locateFile: () => runtimeWasm });
  const parser = new runtime.Parser();
  parser.setLanguage(await runtime.Language.load(grammar));
  return parser;
}

/** What the shell analysis needs from a parse: the commands' names, in order, and whether it failed. */
function commandsOf(parser: seam.Parser, source: string) {
  const tree = parser.parse(source);
  if (!tree) throw new Error("no tree");
  const names = tree.rootNode
    .descendantsOfType("command_name")
    .map((n) => n?.text)
    .filter((t) => t !== undefined);
  return { root: tree.rootNode.type, names, error: tree.rootNode.hasError };
}

const COMMAND = 'FOO=1 ls -la | grep x > out && echo "$(date)"; rm -rf build';

describe("the tree-sitter seam", () => {
  it("in a source checkout is web-tree-sitter, and parses bash with the dev dependencies' files", async () => {
    const parser = await bashParser(
      seam,
      require.resolve("web-tree-sitter/tree-sitter.wasm"),
      require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"),
    );
    expect(commandsOf(parser, COMMAND)).toEqual({
      root: "program",
      names: ["ls", "grep", "echo", "date", "rm"],
      error: false,
    });
    expect(commandsOf(parser, "echo (").error).toBe(true);
  });

  it("in dist is the package's own module, running on the runtime and grammar shipped beside it", async () => {
    const shipped = readFileSync(join(DIST_SHELL, "tree-sitter.js"), "utf8");
    // The published module itself (not our re-export), with no source-map reference to files not shipped.
    expect(shipped).toBe(
      readFileSync(join(REPO_ROOT, "node_modules", "web-tree-sitter", "tree-sitter.js"), "utf8").replace(
        /\n\/\/# sourceMappingURL=.*\s*$/,
        "\n",
      ),
    );
    expect(shipped).not.toContain("sourceMappingURL");
    const runtime = (await import(pathToFileURL(join(DIST_SHELL, "tree-sitter.js")).href)) as Runtime;
    const parser = await bashParser(
      runtime,
      join(DIST_SHELL, "grammar", "tree-sitter.wasm"),
      join(DIST_SHELL, "grammar", "tree-sitter-bash.wasm"),
    );
    expect(commandsOf(parser, COMMAND).names).toEqual(["ls", "grep", "echo", "date", "rm"]);
  });
});
