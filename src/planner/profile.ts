/**
 * @module planner/profile
 * The planner profile: per tool, when it applies and how its arguments are built — as data. Holds the
 * default profile (the seed's table plus toolgate's `grep`, `glob`, `read_file`), a validating parser for
 * profiles written in config files, merging, and rules inferred from a registered tool's schema.
 */

import type { Tool } from "../core/index.js";
import { ConfigError } from "../core/index.js";
import { deepFreeze, isPlainObject } from "../utils/index.js";
import type { ArgSource, ArgTemplate, PlannerProfile, ToolNeed, ToolRule } from "./types.js";

const SEARCH: ToolRule = { args: { query: "text" } };

/**
 * The default profile. Search tools get `{query}` (sub-question, else query); `jira_fetch` needs an issue
 * key; `web_fetch` a URL; `confluence_fetch` a Confluence reference and gets `{page_id}` or `{query}`;
 * `read_file` a path. toolgate's `grep` takes a regex `pattern`, so it gets a quoted string or identifier
 * from the question, escaped — never the whole question; `glob` gets a glob written in the question.
 */
export const DEFAULT_PROFILE: PlannerProfile = deepFreeze<PlannerProfile>({
  tools: {
    grep_search: SEARCH,
    vector_search: SEARCH,
    hybrid_search: SEARCH,
    local_file_qa: SEARCH,
    graph_related: SEARCH,
    read_file: { args: { path: "path" } },
    jira_fetch: { needs: "jira_key", args: { issue_key: "jira_key" } },
    web_fetch: { needs: "url", args: { url: "url" } },
    confluence_fetch: {
      needs: "confluence_ref",
      args: [{ page_id: "confluence_page_id" }, { query: "confluence_query" }],
    },
    grep: { args: { pattern: "search_regex" } },
    glob: { args: { pattern: "glob" } },
  },
  fallback: ["hybrid_search", "vector_search", "grep_search", "local_file_qa"],
});

const NEEDS: ReadonlySet<string> = new Set<ToolNeed>(["none", "jira_key", "url", "confluence_ref", "path"]);
const SOURCES: ReadonlySet<string> = new Set<string>([
  "text",
  "query",
  "jira_key",
  "url",
  "confluence_page_id",
  "confluence_query",
  "path",
  "search_term",
  "search_regex",
  "glob",
] satisfies Exclude<ArgSource, { const: unknown }>[]);

function parseTemplate(value: unknown, where: string): ArgTemplate {
  if (!isPlainObject(value)) throw new ConfigError(`${where} must be an object of argument → source`);
  const template: ArgTemplate = {};
  for (const [param, source] of Object.entries(value)) {
    if (typeof source === "string" && SOURCES.has(source)) template[param] = source as ArgSource;
    else if (isPlainObject(source) && "const" in source && Object.keys(source).length === 1)
      template[param] = { const: source.const };
    else
      throw new ConfigError(
        `${where}.${param}: unknown source ${JSON.stringify(source)} (expected one of ${[...SOURCES].join(", ")}, or {"const": value})`,
      );
  }
  return template;
}

/**
 * Validates a profile written as JSON/TOML data. Throws {@link ConfigError} naming the bad key.
 * @example parsePlannerProfile({ tools: { ticket_lookup: { needs: "jira_key", args: { key: "jira_key" } } } })
 */
export function parsePlannerProfile(value: unknown): PlannerProfile {
  if (!isPlainObject(value) || !isPlainObject(value.tools))
    throw new ConfigError("planner profile: `tools` must be an object");
  for (const key of Object.keys(value))
    if (key !== "tools" && key !== "fallback") throw new ConfigError(`planner profile: unknown key ${key}`);
  const tools: Record<string, ToolRule> = {};
  for (const [name, raw] of Object.entries(value.tools)) {
    const where = `planner profile: tools.${name}`;
    if (!isPlainObject(raw)) throw new ConfigError(`${where} must be an object`);
    for (const key of Object.keys(raw))
      if (key !== "needs" && key !== "args") throw new ConfigError(`${where}: unknown key ${key}`);
    if (raw.needs !== undefined && (typeof raw.needs !== "string" || !NEEDS.has(raw.needs)))
      throw new ConfigError(`${where}.needs must be one of ${[...NEEDS].join(", ")}`);
    const args = Array.isArray(raw.args)
      ? raw.args.map((t, i) => parseTemplate(t, `${where}.args[${i}]`))
      : parseTemplate(raw.args, `${where}.args`);
    tools[name] = raw.needs === undefined ? { args } : { needs: raw.needs as ToolNeed, args };
  }
  const profile: PlannerProfile = { tools };
  if (value.fallback !== undefined) {
    if (!Array.isArray(value.fallback) || !value.fallback.every((n) => typeof n === "string"))
      throw new ConfigError("planner profile: `fallback` must be an array of tool names");
    profile.fallback = value.fallback as string[];
  }
  return profile;
}

/** Later profiles' rules replace earlier ones' per tool; the last `fallback` given wins. */
export function mergeProfiles(...profiles: PlannerProfile[]): PlannerProfile {
  const merged: PlannerProfile = { tools: {} };
  for (const profile of profiles) {
    Object.assign(merged.tools, profile.tools);
    if (profile.fallback) merged.fallback = [...profile.fallback];
  }
  return merged;
}

const TEXT_PARAMS = new Set([
  "query",
  "q",
  "question",
  "search",
  "search_query",
  "text",
  "keywords",
  "prompt",
]);

/** The source for one required parameter, judged from its name, argument kind and schema. */
function sourceFor(param: string, tool: Tool): ArgSource | undefined {
  const kind = tool.argKinds?.[param];
  const schema = (tool.parameters.properties as Record<string, { format?: string }> | undefined)?.[param];
  if (kind === "url" || schema?.format === "uri" || param === "url") return "url";
  if (kind === "path" || param === "path" || param === "file_path") return "path";
  if (param === "issue_key" || param === "issueKey") return "jira_key";
  if (param === "page_id" || param === "pageId") return "confluence_page_id";
  if (TEXT_PARAMS.has(param)) return "text";
  return undefined;
}

/**
 * A rule for a tool the profile does not know, inferred from its schema: every required parameter must map
 * to a source (a URL argument → needs a URL; `query`-like → the text). `undefined` when one does not.
 */
export function inferToolRule(tool: Tool): ToolRule | undefined {
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  if (required.length === 0) return undefined;
  const args: ArgTemplate = {};
  for (const param of required) {
    const source = sourceFor(param, tool);
    if (!source) return undefined;
    args[param] = source;
  }
  const sources = Object.values(args);
  const needs: ToolNeed = sources.includes("url")
    ? "url"
    : sources.includes("jira_key")
      ? "jira_key"
      : "none";
  return needs === "none" ? { args } : { needs, args };
}

/** `base` plus inferred rules for the given tools it has no rule for. */
export function profileForTools(
  tools: readonly Tool[],
  base: PlannerProfile = DEFAULT_PROFILE,
): PlannerProfile {
  const inferred: Record<string, ToolRule> = {};
  for (const tool of tools) {
    if (base.tools[tool.name]) continue;
    const rule = inferToolRule(tool);
    if (rule) inferred[tool.name] = rule;
  }
  return mergeProfiles(base, { tools: inferred });
}
