/**
 * Loading the bash parser: once per process (every caller gets the same parser), from the dev dependencies in
 * a source checkout and from the files shipped in `dist/` in the build, and parsing what the analysis reads.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../test-support/cli.js";
import { bashGrammarPath, bashParserIfLoaded, loadBashParser } from "./parser.js";

const require = createRequire(import.meta.url);

describe("the bash parser", () => {
  it("is loaded once: nothing before the first load, then the same parser for every caller", async () => {
    expect(bashParserIfLoaded()).toBeUndefined();
    const [a, b] = await Promise.all([loadBashParser(), loadBashParser()]);
    expect(a).toBe(b);
    expect(await loadBashParser()).toBe(a);
    expect(bashParserIfLoaded()).toBe(a);
    const tree = a.parse("cat <<EOF > notes.txt\nhello\nEOF\n");
    expect(tree?.rootNode.descendantsOfType("heredoc_body").map((n) => n?.text)).toEqual(["hello\n"]);
    expect(tree?.rootNode.descendantsOfType("file_redirect").map((n) => n?.text)).toEqual(["> notes.txt"]);
  });

  it("uses the dev dependency's grammar in a source checkout and the shipped copy in dist", async () => {
    expect(bashGrammarPath()).toBe(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const built = join(REPO_ROOT, "dist", "policy", "shell");
    const dist = (await import(pathToFileURL(join(built, "parser.js")).href)) as typeof import("./parser.js");
    expect(dist.bashGrammarPath()).toBe(join(built, "grammar", "tree-sitter-bash.wasm"));
    const parser = await dist.loadBashParser();
    const tree = parser.parse("sudo -u bob rm -rf /tmp/x");
    expect(tree?.rootNode.descendantsOfType("command_name").map((n) => n?.text)).toEqual(["sudo"]);
    expect(tree?.rootNode.hasError).toBe(false);
  });
});
