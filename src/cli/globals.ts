/**
 * @module cli/globals
 * The global flags (DESIGN §4) as one table, accepted anywhere on the line before `--`: `--workspace DIR`,
 * `--policy FILE`, `--config FILE`, `--json`, `--debug`, `--help`, `--version`. What remains goes to the
 * command, which parses it against its own table (cli/options.ts).
 */
import { parseArgs } from "node:util";
import { UsageError } from "./exit-codes.js";
import type { OptionTable } from "./options.js";

/** The global flags: the one list `splitGlobals` and `toolgate --help` read. */
export const GLOBAL_OPTIONS = {
  workspace: {
    type: "string",
    value: "DIR",
    description: "the allowed root (default: the current directory)",
  },
  policy: {
    type: "string",
    value: "FILE",
    description: "the policy file (default: .toolgate/policy.toml, else the built-in policy)",
  },
  config: {
    type: "string",
    value: "FILE",
    description: "the settings file (default: .toolgate/config.toml; see docs/configuration.md)",
  },
  json: { type: "boolean", description: "machine-readable output on stdout, nothing else on stdout" },
  debug: { type: "boolean", description: "stack traces on errors" },
  help: { type: "boolean", short: "h", description: "this help, or with a command that command's help" },
  version: { type: "boolean", short: "V", description: "prints the version" },
} as const satisfies OptionTable;

export interface GlobalOptions {
  workspace?: string;
  policy?: string;
  config?: string;
  json: boolean;
  debug: boolean;
  help: boolean;
  version: boolean;
}

/**
 * Takes the global flags out of argv; the rest, in order, is the command and its arguments.
 * @example splitGlobals(["call", "--json", "read_file"]) // { globals: { json: true, ... }, rest: ["call", "read_file"] }
 */
export function splitGlobals(argv: readonly string[]): { globals: GlobalOptions; rest: string[] } {
  const globals: GlobalOptions = { json: false, debug: false, help: false, version: false };
  const taken = new Set<number>();
  const { tokens } = parseArgs({
    args: [...argv],
    options: GLOBAL_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      taken.add(token.index); // `--` ends the globals and is not passed on
      break;
    }
    if (token.kind !== "option" || !Object.hasOwn(GLOBAL_OPTIONS, token.name)) continue;
    const raw = argv[token.index]!;
    const spec: { type: string; short?: string } = GLOBAL_OPTIONS[token.name as keyof typeof GLOBAL_OPTIONS];
    // A short flag inside a group (`-yV`) belongs to the command's parser, which refuses it by name.
    if (raw !== `--${token.name}` && raw !== `-${spec.short}` && !raw.startsWith(`--${token.name}=`))
      continue;
    taken.add(token.index);
    const name = token.name as keyof typeof GLOBAL_OPTIONS;
    if (spec.type === "string") {
      if (token.inlineValue === false) taken.add(token.index + 1);
      if (
        token.value === undefined ||
        token.value === "" ||
        (token.inlineValue === false && isFlag(token.value))
      )
        throw new UsageError(`--${name} needs a value`);
      globals[name as "workspace" | "policy" | "config"] = token.value;
    } else globals[name as "json" | "debug" | "help" | "version"] = true;
  }
  const terminator = tokens.find((t) => t.kind === "option-terminator")?.index ?? argv.length;
  const rest = argv.filter((_, i) => !taken.has(i) || i > terminator);
  return { globals, rest };
}

function isFlag(value: string): boolean {
  return value.startsWith("--");
}
