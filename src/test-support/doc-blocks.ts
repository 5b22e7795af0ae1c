/**
 * Extracts the fenced code blocks of Markdown files and decides how each is checked (docs/contributing.md,
 * "Examples are tests"): `sh`/`bash` blocks run with the real binary, `js`/`ts` blocks run against the built
 * package, `toml` blocks load with the policy or config loader, `json` blocks parse. A block preceded by
 * `<!-- illustrative -->` is shown, never run; a `json` block preceded by `<!-- output -->` must equal what the
 * js/ts block above it prints; so are `text` and `markdown` blocks and blocks without a
 * language (output and file samples). Any other language is an error, so a new kind of block gets a decision.
 */

export type BlockMode = "shell" | "js" | "ts" | "toml" | "json" | "output" | "illustrative";

export interface DocBlock {
  /** `README.md:152`: the file (relative to the repo) and the 1-based line of the opening fence. */
  where: string;
  lang: string;
  mode: BlockMode;
  code: string;
  /** For an `output` block: the js/ts block whose printed JSON it must equal. */
  outputOf?: string;
}

const MODES: Record<string, BlockMode> = {
  sh: "shell",
  bash: "shell",
  shell: "shell",
  js: "js",
  mjs: "js",
  javascript: "js",
  ts: "ts",
  typescript: "ts",
  toml: "toml",
  json: "json",
  text: "illustrative",
  markdown: "illustrative",
  md: "illustrative",
  "": "illustrative",
};

/** The marker, alone on the line before a fence (blank lines between are allowed). */
export const ILLUSTRATIVE = "<!-- illustrative -->";
/** Marks a `json` block as what the nearest js/ts block above it prints (compared as JSON). */
export const OUTPUT = "<!-- output -->";

/** The blocks of one Markdown file, in order. Throws for an unclosed fence or an unknown language. */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence!); i++) {
      body.push(lines[i]!.startsWith(indent!) ? lines[i]!.slice(indent!.length) : lines[i]!);
    }
    if (i >= lines.length) throw new Error(`${file}:${start + 1}: the code block is never closed`);
    const where = `${file}:${start + 1}`;
    const marker = markerBefore(lines, start);
    // A block marked illustrative may be in any language; any other must be one the test can run or check.
    const mode = marker === ILLUSTRATIVE ? "illustrative" : MODES[lang!.toLowerCase()];
    if (mode === undefined)
      throw new Error(
        `${where}: a \`${lang}\` block can be neither run nor checked: mark it ${ILLUSTRATIVE} or use sh, js, ts, toml or json`,
      );
    const block: DocBlock = {
      where,
      lang: lang!,
      mode: marker === ILLUSTRATIVE ? "illustrative" : mode,
      code: body.join("\n"),
    };
    if (marker === OUTPUT) {
      const source = blocks.findLast((b) => b.mode === "js" || b.mode === "ts");
      if (mode !== "json" || !source)
        throw new Error(`${where}: ${OUTPUT} marks a json block below a js or ts block that prints it`);
      block.mode = "output";
      block.outputOf = source.where;
    }
    blocks.push(block);
  }
  return blocks;
}

function markerBefore(lines: readonly string[], fenceIndex: number): string | undefined {
  for (let j = fenceIndex - 1; j >= 0; j--) {
    const line = lines[j]!.trim();
    if (line === "") continue;
    return line === ILLUSTRATIVE || line === OUTPUT ? line : undefined;
  }
  return undefined;
}

/** One command of a shell block: its line and the exit code it must end with (`# exit N`, default 0). */
export interface ShellCommand {
  line: number;
  command: string;
  exit: number;
}

/**
 * The commands of a shell block: each non-comment line (a trailing `\` joins the next). A trailing comment
 * starting with `exit N` sets the expected exit code: `toolgate call write_file '{...}'   # exit 3: denied`.
 */
export function shellCommands(block: DocBlock): ShellCommand[] {
  const first = Number(block.where.slice(block.where.lastIndexOf(":") + 1)) + 1;
  const lines = block.code.split("\n");
  const out: ShellCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = first + i;
    let command = lines[i]!;
    while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1)}\n${lines[++i]}`;
    if (command.trim() === "" || command.trim().startsWith("#")) continue;
    const expected = /\s#\s*exit (\d+)\b[^'"]*$/.exec(command);
    out.push({ line, command, exit: expected ? Number(expected[1]) : 0 });
  }
  return out;
}
