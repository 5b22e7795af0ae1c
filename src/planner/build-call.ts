/**
 * @module planner/build-call
 * Applies one profile rule: checks applicability against the user's query, then builds the arguments
 *. Either a call comes out, or a skip with the reason — a tool that passes the check but cannot get its
 * arguments is reported, never silently dropped.
 */

import { escapeRegex } from "../utils/index.js";
import { confluenceSearchText } from "./confluence-query.js";
import { findJiraKey, type JiraKeyOptions } from "./extract-jira.js";
import { findGlob, findPath, findSearchTerm } from "./extract-text.js";
import { findConfluenceRef, findUrl } from "./extract-url.js";
import type { ArgSource, ArgTemplate, PlannedCall, SkippedCall, ToolNeed, ToolRule } from "./types.js";

/** What a rule is applied to. */
export interface BuildContext {
  /** The user's query. */
  query: string;
  /** The sub-question being planned; absent → the query. */
  subQuestion?: string;
  /** The model's visible reply (only `path` looks there). */
  replyText?: string;
  jira?: JiraKeyOptions;
  /** Tool names, so a grep term is never a tool's own name. */
  toolNames?: readonly string[];
}

const NEED_REASONS: Record<Exclude<ToolNeed, "none">, string> = {
  jira_key: "no Jira issue key (like PROJ-123) in the query",
  url: "no http(s) URL in the query",
  confluence_ref: "the query names no Confluence page, wiki or page id",
  path: "no file path in the query",
};

const SOURCE_REASONS: Record<Exclude<ArgSource, { const: unknown }>, string> = {
  text: "no text",
  query: "no query",
  jira_key: "no Jira issue key in the query",
  url: "no http(s) URL in the query",
  confluence_page_id: "no Confluence page id in the query",
  confluence_query: "nothing to search for once the words pointing at Confluence are removed",
  path: "no file path in the query or the reply",
  search_term: "no quoted string or code identifier to search for in the query",
  search_regex: "no quoted string or code identifier to search for in the query",
  glob: "no glob pattern (like src/**/*.ts) in the query",
};

/** Texts to search, most specific first: the sub-question, then the query. */
function texts(ctx: BuildContext): string[] {
  return ctx.subQuestion && ctx.subQuestion !== ctx.query ? [ctx.subQuestion, ctx.query] : [ctx.query];
}

function first<T>(inputs: string[], find: (text: string) => T | undefined): T | undefined {
  for (const text of inputs) {
    const found = find(text);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** True when the need is met by the sub-question or the query. */
export function isApplicable(need: ToolNeed | undefined, ctx: BuildContext): boolean {
  const inputs = texts(ctx);
  switch (need ?? "none") {
    case "none":
      return true;
    case "jira_key":
      return first(inputs, (t) => findJiraKey(t, ctx.jira)) !== undefined;
    case "url":
      return first(inputs, findUrl) !== undefined;
    case "confluence_ref":
      return first(inputs, findConfluenceRef) !== undefined;
    case "path":
      return first(inputs, findPath) !== undefined;
  }
}

/** The value of one source, or `undefined` when it cannot be found. */
export function resolveSource(source: ArgSource, ctx: BuildContext): unknown {
  if (typeof source === "object") return source.const;
  const inputs = texts(ctx);
  const text = (ctx.subQuestion ?? ctx.query).trim();
  switch (source) {
    case "text":
      return text || undefined;
    case "query":
      return ctx.query.trim() || undefined;
    case "jira_key":
      return first(inputs, (t) => findJiraKey(t, ctx.jira));
    case "url":
      return first(inputs, findUrl);
    case "confluence_page_id":
      return first(inputs, (t) => findConfluenceRef(t)?.pageId);
    case "confluence_query": {
      const title = first(inputs, (t) => findConfluenceRef(t)?.title);
      // Without a page title, what the question asks for; nothing left to search for: no call.
      return title || confluenceSearchText(text);
    }
    case "path":
      return first(ctx.replyText ? [...inputs, ctx.replyText] : inputs, findPath);
    case "search_term":
      return first(inputs, (t) => findSearchTerm(t, ctx.toolNames));
    case "search_regex": {
      const term = first(inputs, (t) => findSearchTerm(t, ctx.toolNames));
      return term === undefined ? undefined : escapeRegex(term);
    }
    case "glob":
      return first(inputs, findGlob);
  }
}

/** Fills a template; on failure names the first source that yielded nothing. */
function fill(
  template: ArgTemplate,
  ctx: BuildContext,
): { args: Record<string, unknown> } | { missing: string } {
  const args: Record<string, unknown> = {};
  for (const [param, source] of Object.entries(template)) {
    const value = resolveSource(source, ctx);
    if (value === undefined) {
      const why = typeof source === "object" ? "no value" : SOURCE_REASONS[source];
      return { missing: `no value for argument "${param}" (${why})` };
    }
    args[param] = value;
  }
  return { args };
}

/**
 * Applies `rule` to `name`: a call when the tool applies and its arguments can be built, else a skip.
 * @example buildCall("jira_fetch", DEFAULT_PROFILE.tools.jira_fetch, { query: "PROJ-123 的状态是什么？" })
 * // { name: "jira_fetch", args: { issue_key: "PROJ-123" } }
 */
export function buildCall(
  name: string,
  rule: ToolRule | undefined,
  ctx: BuildContext,
): PlannedCall | SkippedCall {
  if (!rule) return { name, reason: `the planner profile has no argument builder for ${name}` };
  if (rule.needs && rule.needs !== "none" && !isApplicable(rule.needs, ctx))
    return { name, reason: `not applicable: ${NEED_REASONS[rule.needs]}` };
  const templates = Array.isArray(rule.args) ? rule.args : [rule.args];
  let missing = "no argument template";
  for (const template of templates) {
    const filled = fill(template, ctx);
    if ("args" in filled) return { name, args: filled.args };
    missing = filled.missing;
  }
  return { name, reason: `skipped: ${missing}` };
}
