/**
 * @module agents/definitions
 * Agent definitions: `.toolgate/agents/NAME.md`, YAML front matter (`name`, `description`, `tools`,
 * optional `max_depth`) and the instructions as the body. A malformed file is reported with its path and
 * the reason, and skipped; the others still load.
 */
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { readPlainFile } from "../utils/index.js";

// The YAML parser loads on the first agent file, not at every start-up (`toolgate call` has none to read).
const require = createRequire(import.meta.url);
let yamlParse: ((text: string) => unknown) | undefined;
function parseYaml(text: string): unknown {
  yamlParse ??= (require("yaml") as typeof import("yaml")).parse;
  return yamlParse(text);
}

/** How deep sub-agents may spawn further sub-agents unless a definition says otherwise. */
export const DEFAULT_MAX_DEPTH = 2;

/** One agent. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** The whitelist as written: exact names, globs, `*`. */
  tools: string[];
  /** `max_depth` in the file. */
  maxDepth: number;
  /** The body: the agent's instructions. */
  instructions: string;
  /** Where it was defined (absent for definitions made in code). */
  file?: string;
}

/** A file that was skipped, and why. */
export interface AgentFileProblem {
  file: string;
  reason: string;
}

export interface AgentDefinitions {
  /** Sorted by name. */
  agents: AgentDefinition[];
  problems: AgentFileProblem[];
  /** Non-fatal notes (unknown keys ignored). */
  warnings: string[];
}

const KNOWN_KEYS = new Set(["name", "description", "tools", "max_depth"]);
const AGENT_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

/** The folder agent files live in. */
export function agentsDir(root: string): string {
  return join(root, ".toolgate", "agents");
}

/** Loads every `*.md` in `<root>/.toolgate/agents/` (none when the folder does not exist). */
export async function loadAgentDefinitions(root: string): Promise<AgentDefinitions> {
  const dir = agentsDir(root);
  let entries: string[];
  try {
    entries = (await readdir(dir)).filter((f) => f.endsWith(".md")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { agents: [], problems: [], warnings: [] };
    throw error;
  }
  const agents: AgentDefinition[] = [];
  const problems: AgentFileProblem[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, string>();
  for (const entry of entries) {
    const file = join(dir, entry);
    try {
      const parsed = parseAgentDefinition((await readPlainFile(file)).toString("utf8"), file, warnings);
      const other = byName.get(parsed.name);
      if (other) throw new Error(`agent ${JSON.stringify(parsed.name)} is already defined in ${other}`);
      byName.set(parsed.name, file);
      agents.push(parsed);
    } catch (error) {
      problems.push({ file, reason: (error as Error).message });
    }
  }
  agents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { agents, problems, warnings };
}

/**
 * Parses one agent file. Throws an Error whose message is the reason (the caller adds the file).
 * `name` defaults to the file name without `.md`.
 */
export function parseAgentDefinition(text: string, file: string, warnings: string[] = []): AgentDefinition {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match)
    throw new Error("no YAML front matter: the file must start with a line '---' and close it with '---'");
  let meta: unknown;
  try {
    meta = parseYaml(match[1]!);
  } catch (error) {
    throw new Error(`the front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (meta === null || typeof meta !== "object" || Array.isArray(meta))
    throw new Error("the front matter must be a YAML mapping");
  const m = meta as Record<string, unknown>;
  for (const key of Object.keys(m)) {
    if (!KNOWN_KEYS.has(key)) warnings.push(`${file}: unknown key ${JSON.stringify(key)} ignored`);
  }
  const name = m.name === undefined ? basename(file, ".md") : m.name;
  if (typeof name !== "string" || !AGENT_NAME.test(name))
    throw new Error(`"name" must be letters, digits, '_', '-' or '.', not ${JSON.stringify(name)}`);
  if (typeof m.description !== "string" || m.description.trim() === "")
    throw new Error(`"description" must be a non-empty string`);
  let tools: string[];
  if (m.tools === undefined || m.tools === null) tools = [];
  else if (typeof m.tools === "string")
    tools = m.tools
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
  else if (Array.isArray(m.tools) && m.tools.every((t) => typeof t === "string"))
    tools = m.tools.map((t: string) => t.trim());
  else throw new Error(`"tools" must be a list of tool names or patterns`);
  if (tools.some((t) => t === "")) throw new Error(`"tools" has an empty entry`);
  let maxDepth = DEFAULT_MAX_DEPTH;
  if (m.max_depth !== undefined) {
    if (typeof m.max_depth !== "number" || !Number.isInteger(m.max_depth) || m.max_depth < 0)
      throw new Error(`"max_depth" must be a whole number ≥ 0, not ${JSON.stringify(m.max_depth)}`);
    maxDepth = m.max_depth;
  }
  return { name, description: m.description.trim(), tools, maxDepth, instructions: match[2]!.trim(), file };
}
