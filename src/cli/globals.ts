/**
 * @module cli/globals
 * Global flags (DESIGN §4), accepted anywhere on the line: `--workspace DIR`, `--policy FILE`,
 * `--config FILE`, `--json`, `--debug`, `--help`. What remains goes to the command.
 */
import { UsageError } from "./exit-codes.js";

export interface GlobalOptions {
  workspace?: string;
  policy?: string;
  config?: string;
  json: boolean;
  debug: boolean;
  help: boolean;
}

const VALUE_FLAGS = { "--workspace": "workspace", "--policy": "policy", "--config": "config" } as const;

export function splitGlobals(argv: readonly string[]): { globals: GlobalOptions; rest: string[] } {
  const globals: GlobalOptions = { json: false, debug: false, help: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i + 1));
      break;
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    if (flag in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
      globals[VALUE_FLAGS[flag as keyof typeof VALUE_FLAGS]] = value;
    } else if (arg === "--json") globals.json = true;
    else if (arg === "--debug") globals.debug = true;
    else if (arg === "--help" || arg === "-h") globals.help = true;
    else rest.push(arg);
  }
  return { globals, rest };
}
