/**
 * @module tools/jira-fetch
 * The `jira_fetch` tool: one Jira issue by key — summary, status, type, priority, people, dates, labels,
 * description and comments as text — from the Jira REST API (v2 wiki text or v3 ADF), through the SSRF-safe
 * client. Registered only when Jira is configured (base URL + token).
 */
import { defineTool, okResult, type Tool } from "../core/index.js";
import { adfToText } from "./atlassian/adf.js";
import { type AtlassianDeps, atlassianGet, trimBase, truncateText } from "./atlassian/client.js";

/** Parameters of `jira_fetch`. */
export interface JiraFetchParams {
  issue_key: string;
  maxComments?: number;
  maxLength?: number;
}

/** What `jira_fetch` is built from. */
export interface JiraFetchDeps extends AtlassianDeps {
  /** REST API version. Default: 3 with an e-mail (Cloud), else 2 (Server/Data Center). */
  apiVersion?: 2 | 3;
}

const ISSUE_KEY = /^[A-Z][A-Z0-9_]{1,9}-[1-9][0-9]{0,8}$/;
const FIELDS =
  "summary,status,issuetype,priority,assignee,reporter,created,updated,labels,description,comment";
const DEFAULT_MAX_LENGTH = 50_000;

type Fields = Record<string, unknown>;

function named(value: unknown, key = "name"): string {
  if (value && typeof value === "object") {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === "string") return v;
  }
  return "";
}

function person(value: unknown): string {
  return named(value, "displayName") || named(value, "name") || "Unassigned";
}

/** The issue as text for the model. */
function render(key: string, fields: Fields, browseUrl: string, maxComments: number): string {
  const lines = [`${key}: ${typeof fields.summary === "string" ? fields.summary : "(no summary)"}`];
  const facts = [
    ["Status", named(fields.status)],
    ["Type", named(fields.issuetype)],
    ["Priority", named(fields.priority)],
  ].filter(([, v]) => v);
  if (facts.length) lines.push(facts.map(([k, v]) => `${k}: ${v}`).join(" | "));
  lines.push(
    `Assignee: ${person(fields.assignee)} | Reporter: ${fields.reporter ? person(fields.reporter) : "unknown"}`,
  );
  if (typeof fields.created === "string")
    lines.push(`Created: ${fields.created} | Updated: ${String(fields.updated ?? "")}`);
  if (Array.isArray(fields.labels) && fields.labels.length) lines.push(`Labels: ${fields.labels.join(", ")}`);
  lines.push(`URL: ${browseUrl}`, "", "Description:", adfToText(fields.description).trim() || "(none)");
  const block = fields.comment as { comments?: unknown[]; total?: number } | undefined;
  const comments = Array.isArray(block?.comments) ? block.comments : [];
  const total = typeof block?.total === "number" ? block.total : comments.length;
  if (total > 0) {
    // The newest comments matter most; Jira returns them oldest first.
    const shown = comments.slice(-maxComments);
    lines.push("", `Comments (${shown.length} of ${total}, newest last):`);
    for (const raw of shown) {
      const c = raw as Record<string, unknown>;
      lines.push(`--- ${person(c.author)}, ${String(c.created ?? "")}:`, adfToText(c.body).trim());
    }
  }
  return lines.join("\n");
}

/**
 * Creates the `jira_fetch` tool.
 * @example registry.register(createJiraFetchTool({ baseUrl: "https://acme.atlassian.net", email, token }))
 */
export function createJiraFetchTool(deps: JiraFetchDeps): Tool<JiraFetchParams> {
  const version = deps.apiVersion ?? (deps.email ? 3 : 2);
  const base = trimBase(deps.baseUrl);
  return defineTool<JiraFetchParams>({
    name: "jira_fetch",
    displayName: "Jira Fetch",
    description:
      "Fetches a Jira issue by key (like PROJ-123): summary, status, type, priority, assignee, reporter, " +
      "dates, labels, description and the latest comments, as text.",
    parameters: {
      type: "object",
      properties: {
        issue_key: { type: "string", description: "The issue key, e.g. PROJ-123." },
        maxComments: {
          type: "integer",
          minimum: 0,
          maximum: 100,
          description: "Latest comments to include (default 20).",
        },
        maxLength: {
          type: "integer",
          minimum: 1,
          description: `Maximum characters of output (default ${DEFAULT_MAX_LENGTH}).`,
        },
      },
      required: ["issue_key"],
      additionalProperties: false,
    },
    kind: "fetch",
    risk: "low",
    validate: (p) =>
      ISSUE_KEY.test(p.issue_key)
        ? undefined
        : `issue_key must be a Jira issue key like PROJ-123, got ${JSON.stringify(p.issue_key)}`,
    describe: (p) => `Fetch Jira issue ${p.issue_key}`,
    locations: (p) => [`${base}/browse/${p.issue_key}`],
    async run(params, { signal }) {
      const key = params.issue_key;
      const got = await atlassianGet(
        deps,
        `/rest/api/${version}/issue/${encodeURIComponent(key)}?fields=${FIELDS}`,
        `Jira issue ${key}`,
        signal,
      );
      if ("error" in got) return got.error;
      const issue = got.json as { key?: string; fields?: Fields };
      const realKey = typeof issue.key === "string" ? issue.key : key;
      const text = render(realKey, issue.fields ?? {}, `${base}/browse/${realKey}`, params.maxComments ?? 20);
      const out = truncateText(text, params.maxLength ?? DEFAULT_MAX_LENGTH);
      const summary = typeof issue.fields?.summary === "string" ? issue.fields.summary : "";
      return okResult(out.text, `Fetched ${realKey}: ${summary}`, {
        key: realKey,
        url: `${base}/browse/${realKey}`,
        status: named(issue.fields?.status),
        truncated: out.truncated,
      });
    },
  });
}
