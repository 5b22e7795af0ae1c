/**
 * @module cli/options
 * Flags as data: one table per command (and one for the global flags) that both parses argv and writes that
 * command's `--help`. Parsing is strict — an unknown flag is a UsageError that names it and the command.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./exit-codes.js";

/** One flag: `--name` (and `-short`), its value's placeholder when it takes one, and what it does. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The placeholder shown in help and usage (`FILE`, `N`); string options only. */
  value?: string;
  /** The values a string option takes, when it is one of a few words: shown as `a|b|c` in place of `value`. */
  choices?: readonly string[];
  /** A string option that may be given more than once (its value is then a list). */
  multiple?: boolean;
  description: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** What `toolgate COMMAND --help` prints besides the usage line. */
export interface CommandHelp {
  /** One or two sentences on what the command does. */
  summary: string;
  /** Every flag the command (or one of its sub-commands) takes. */
  options: OptionTable;
  /** Command lines to copy, each a complete `toolgate ...`. */
  examples: readonly string[];
}

/** Parsed flags: strings for string options, booleans for boolean ones. */
export type OptionValues<T extends OptionTable> = {
  [K in keyof T]?: T[K]["type"] extends "boolean"
    ? boolean
    : T[K]["multiple"] extends true
      ? string[]
      : string;
};

/**
 * Parses a command's argv against its table (`command` is what the user typed, e.g. `toolgate policy check`).
 * @example parseOptions("toolgate call", ["read_file", "--yes"], { yes: { type: "boolean", description: "..." } })
 * // { values: { yes: true }, positionals: ["read_file"] }
 * @throws UsageError for an unknown flag, a missing value, or a value given to a switch.
 */
export function parseOptions<T extends OptionTable>(
  command: string,
  argv: readonly string[],
  options: T,
): { values: OptionValues<T>; positionals: string[] } {
  const config = Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.short ? { short: spec.short } : {}),
        ...(spec.multiple ? { multiple: true } : {}),
      },
    ]),
  );
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: config,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as OptionValues<T>, positionals };
  } catch (error) {
    throw usageErrorFrom(error, command);
  }
}

/** node:util's parse errors in toolgate's words, naming the flag and the command. */
function usageErrorFrom(error: unknown, command: string): unknown {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message ?? "";
  // node:util names the flag as '--name', '-x, --name' or '--name <value>'.
  const flag = /'(?:-\w, )?(-[^' ]+)/.exec(message)?.[1];
  const help = `(see ${command.split(" ").slice(0, 2).join(" ")} --help)`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag)
    return new UsageError(`unknown option ${flag} for "${command}" ${help}`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
    const why = /does not take an argument/.test(message) ? "takes no value" : "needs a value";
    return new UsageError(`option ${flag} ${why} for "${command}" ${help}`);
  }
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))
    return new UsageError(`${message} (${command})`);
  return error;
}

/** `--provider ollama|openai|local`, `--batch FILE`, `--yes`: the long flag with what it takes. */
function longFlag(name: string, spec: OptionSpec): string {
  if (spec.type === "boolean") return `--${name}`;
  return `--${name} ${spec.choices?.join("|") ?? spec.value ?? "VALUE"}`;
}

/** `-y, --yes` / `    --batch FILE`: a flag as help shows it. */
function flagText(name: string, spec: OptionSpec): string {
  const long = longFlag(name, spec);
  return spec.short ? `-${spec.short}, ${long}` : `    ${long}`;
}

/**
 * A table's flags as a usage line shows them, in the table's order.
 * @example usageFlags({ yes: { type: "boolean", short: "y", description: "..." } }) // "[--yes]"
 */
export function usageFlags(options: OptionTable): string {
  return Object.entries(options)
    .map(([name, spec]) => `[${longFlag(name, spec)}]${spec.multiple ? "..." : ""}`)
    .join(" ");
}

/** Two columns: flags, then what they do. */
export function optionLines(options: OptionTable): string[] {
  const rows = Object.entries(options).map(
    ([name, spec]) => [flagText(name, spec), spec.description] as const,
  );
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

/** A command's `--help`: usage, what it does, its flags, the global flags' pointer, examples. */
export function renderCommandHelp(usage: string, help: CommandHelp): string {
  const usages = usage.split(" | ").map((u, i) => `${i === 0 ? "Usage: " : "       "}${u}`);
  const parts = [usages.join("\n"), help.summary];
  if (Object.keys(help.options).length > 0) parts.push(`Options:\n${optionLines(help.options).join("\n")}`);
  parts.push("Global flags (--workspace, --policy, --config, --json, --debug): see toolgate --help");
  parts.push(
    `Example${help.examples.length > 1 ? "s" : ""}:\n${help.examples.map((e) => `  ${e}`).join("\n")}`,
  );
  return `${parts.join("\n\n")}\n`;
}
