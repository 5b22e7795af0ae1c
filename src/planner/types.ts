/**
 * @module planner/types
 * The planner's data: its input (query, model reply, routing plan, scope), its result (method, calls,
 * reason, skipped), and the profile format that declares, per tool, when it applies and how its arguments
 * are built. Types only.
 */

/** Which step of the cascade produced the calls. */
export type PlanMethod = "routing" | "native" | "json" | "text" | "fallback" | "none";

/** A call the planner proposes. It still goes through the whole pipeline (scope, validation, policy). */
export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

/** A tool the planner considered and left out, with the reason. */
export interface SkippedCall {
  name: string;
  reason: string;
}

/** The routing plan an earlier step (`analyze_and_route`) produced. All fields optional. */
export interface RoutingPlan {
  query_type?: string;
  sub_questions?: string[];
  suggested_tools?: string[];
}

/** The model's reply: its text and any native tool calls, in the provider's own shape. */
export interface ModelReply {
  text?: string;
  /** OpenAI `tool_calls`, Ollama `tool_calls`, Anthropic `tool_use` blocks, Gemini `functionCall`s. */
  toolCalls?: unknown[];
}

/**
 * Where a value for an argument comes from.
 * - `text`: the sub-question being planned, else the query.
 * - `query`: always the user's original query.
 * - `jira_key`, `url`, `confluence_page_id`, `path`, `search_term`, `glob`: extracted (sub-question first,
 *   then the query; `path` also looks in the model's reply).
 * - `search_regex`: `search_term` escaped for a regular expression (toolgate's `grep` takes a regex).
 * - `confluence_query`: the text without Confluence/wiki words and URLs (never empty: falls back to `text`).
 * - `{ const }`: a fixed value.
 */
export type ArgSource =
  | "text"
  | "query"
  | "jira_key"
  | "url"
  | "confluence_page_id"
  | "confluence_query"
  | "path"
  | "search_term"
  | "search_regex"
  | "glob"
  | { const: unknown };

/** What the user's query must contain for a tool to apply (checked before any argument is built). */
export type ToolNeed = "none" | "jira_key" | "url" | "confluence_ref" | "path";

/** Argument name → where its value comes from. Every source must yield a value, or the template fails. */
export type ArgTemplate = Record<string, ArgSource>;

/** How the planner treats one tool in guarded extraction, routing fan-out and the default call. */
export interface ToolRule {
  /** Applicability. Default `none`: always applicable. */
  needs?: ToolNeed;
  /** Argument builder: one template, or alternatives tried in order; none yields → call skipped. */
  args: ArgTemplate | ArgTemplate[];
}

/**
 * The planner's table of tools, as data. The built-in default covers the seed's tools and toolgate's
 * `grep`, `glob`, `read_file`; hosts merge in rules for their own tools.
 */
export interface PlannerProfile {
  tools: Record<string, ToolRule>;
  /** Candidates for the default call on a first round with nothing found; the first one in scope is used. */
  fallback?: string[];
}

/** One planning step's input. */
export interface PlanInput {
  /** The user's query. */
  query: string;
  /** The model's reply. Omitted: only routing fan-out and the default call can produce calls. */
  reply?: ModelReply;
  routing?: RoutingPlan;
  /** Context (evidence) already gathered in an earlier round. */
  hasContext?: boolean;
  /** 0 for the first round (default). */
  round?: number;
  /** Tool names the caller may use; guarded extraction never proposes anything else. */
  scope: readonly string[];
  /** Default: {@link DEFAULT_PROFILE}. */
  profile?: PlannerProfile;
  /** Overrides the profile's fallback: the call to make on a first round when nothing was found. */
  defaultCall?: { name: string; args?: ArgTemplate };
  /** When set, only issue keys of these Jira projects count (e.g. `["PROJ", "OPS"]`). */
  jiraProjectKeys?: readonly string[];
  /** `false` turns the routing fan-out off (config `planner.routing`). Default `true`. */
  fanOut?: boolean;
  /**
   * Text is an answer unless it is a call: only the models' call markup (`<tool_call>`, `[TOOL_CALLS]`,
   * `<|python_tag|>`, `<function=…>`) or a reply that is nothing but a JSON call counts; no tool mentions
   * are extracted. For models that call tools natively, and for any reply after tool results. Default false.
   */
  strictText?: boolean;
}

/** One planning step's outcome: which step produced the calls, why, and what was left out. */
export interface PlanResult {
  method: PlanMethod;
  calls: PlannedCall[];
  reason: string;
  skipped: SkippedCall[];
}
