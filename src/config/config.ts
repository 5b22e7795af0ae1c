/**
 * @module config/config
 * `.toolgate/config.toml`: reading and validating it against {@link CONFIG_SCHEMA}, and turning it into the
 * settings the library uses ({@link settingsFromConfig}). Validated strictly: an unknown section or key, or a
 * value of the wrong type, is a ConfigError naming the file and the key — a typo never silently turns a
 * setting off.
 */

import { parse as parseToml } from "smol-toml";
import type { z } from "zod";
import { ConfigError } from "../core/index.js";
import { isPlainObject, readPlainFile, whyUnread } from "../utils/index.js";
import { camelKeys } from "./defaults.js";
import { HOOK_KEYS } from "./hooks-schema.js";
import { CONFIG_SCHEMA, type ToolgateConfig, type ToolgateSettings } from "./schema.js";

/** Parses and validates config text. `source` names the file in errors. */
export function parseConfig(text: string, source: string): ToolgateConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid TOML: ${firstLine((error as Error).message)}`, source);
  }
  return validateConfig(raw, source);
}

/** Reads and validates a config file. A missing file is an error (the caller decides whether one is required). */
export async function loadConfigFile(path: string): Promise<ToolgateConfig> {
  let text: string;
  try {
    text = (await readPlainFile(path)).toString("utf8");
  } catch (error) {
    throw new ConfigError(`${path}: cannot read the config file (${whyUnread(error)})`, path);
  }
  return parseConfig(text, path);
}

/**
 * Checks a config object (parsed TOML, or one a program wrote) against the schema; returns it as given.
 * @throws ConfigError `source: key.path problem` for the first problem found.
 */
export function validateConfig(value: unknown, source: string): ToolgateConfig {
  const result = checked(value, source);
  return result === undefined ? (value as ToolgateConfig) : raise(result, source);
}

/**
 * The settings the library uses: camelCase keys, every section present, each default applied — the one
 * place config becomes settings.
 * @example settingsFromConfig({ limits: { max_chars: 1000 } }).limits // { maxChars: 1000, maxLines: 2000 }
 * @throws ConfigError when the config does not fit the schema (`source` names it).
 */
export function settingsFromConfig(config: ToolgateConfig, source = "config"): ToolgateSettings {
  const problem = checked(config, source);
  if (problem !== undefined) raise(problem, source);
  return camelKeys(CONFIG_SCHEMA.parse(config)) as ToolgateSettings;
}

function checked(value: unknown, source: string): z.core.$ZodIssue | undefined {
  if (!isPlainObject(value))
    throw new ConfigError(`${source}: the config must be a table of sections`, source);
  for (const [name, table] of Object.entries(value)) {
    // zod takes a Date for an object; TOML's dates are never a section.
    if (table instanceof Date)
      throw new ConfigError(`${source}: ${name} must be a table ([${name}])`, source);
  }
  const result = CONFIG_SCHEMA.safeParse(value);
  return result.success ? undefined : result.error.issues[0];
}

function raise(issue: z.core.$ZodIssue, source: string): never {
  throw new ConfigError(`${source}: ${describeIssue(issue)}`, source);
}

/** One issue in the words of the file: sections are `[name]`, keys `section.key`. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    if (path.length === 0)
      return `unknown section [${key}] (known: ${Object.keys(CONFIG_SCHEMA.shape).join(", ")})`;
    // Inside a [[hooks]] table (`hooks.0`): the table's keys, not a section's.
    if (path.length !== 1) return `unknown key ${[...path, key].join(".")}`;
    const section = path[0] as keyof typeof CONFIG_SCHEMA.shape;
    if (HOOK_KEYS.includes(section)) return `${section}: unknown key ${key}`;
    const known = Object.keys(sectionShape(section));
    return `unknown key ${section}.${key} (known in [${section}]: ${known.join(", ")})`;
  }
  if (path.length === 1 && !HOOK_KEYS.includes(path[0]!)) return `${path[0]} must be a table ([${path[0]}])`;
  return `${path.join(".")} ${issue.message}`;
}

function firstLine(s: string): string {
  return s.split("\n")[0] ?? s;
}

/** A section's keys' schemas (every top-level key but the hook keys is a section). */
function sectionShape(name: string): object {
  return (CONFIG_SCHEMA.shape as unknown as Record<string, { unwrap(): { shape: object } }>)[name]!.unwrap()
    .shape;
}
