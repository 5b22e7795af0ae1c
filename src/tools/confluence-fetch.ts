/**
 * @module tools/confluence-fetch
 * The `confluence_fetch` tool: a Confluence page by id (title, space, version, body as Markdown), or a CQL
 * text search listing matching pages, from the Confluence REST API through the SSRF-safe client.
 * Registered only when Confluence is configured (base URL + token).
 */
import { defineTool, okResult, type Tool } from "../core/index.js";
import { type AtlassianDeps, atlassianGet, trimBase, truncateText } from "./atlassian/client.js";

/** Parameters of `confluence_fetch`: exactly one of `page_id` and `query`. */
export interface ConfluenceFetchParams {
  page_id?: string;
  query?: string;
  limit?: number;
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 50_000;

type Json = Record<string, unknown>;

function str(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) v = v && typeof v === "object" ? (v as Json)[key] : undefined;
  return v;
}

/** A CQL string literal: backslashes and double quotes escaped. */
export function cqlString(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * Creates the `confluence_fetch` tool.
 * @example registry.register(createConfluenceFetchTool({ baseUrl: "https://acme.atlassian.net/wiki", email, token }))
 */
export function createConfluenceFetchTool(deps: AtlassianDeps): Tool<ConfluenceFetchParams> {
  const base = trimBase(deps.baseUrl);
  const webUrl = (page: unknown) => {
    const link = str(field(page, "_links", "webui"));
    return link ? `${base}${link}` : "";
  };

  async function fetchPage(id: string, maxLength: number, signal: AbortSignal) {
    const got = await atlassianGet(
      deps,
      `/rest/api/content/${id}?expand=body.storage,version,space`,
      `Confluence page ${id}`,
      signal,
    );
    if ("error" in got) return got.error;
    const page = got.json;
    const title = str(field(page, "title"));
    const header = [`Title: ${title}`, `Page id: ${str(field(page, "id")) || id}`];
    const space = str(field(page, "space", "key"));
    if (space)
      header.push(
        `Space: ${space}${field(page, "space", "name") ? ` (${str(field(page, "space", "name"))})` : ""}`,
      );
    const version = str(field(page, "version", "number"));
    if (version)
      header.push(
        `Version: ${version}, ${str(field(page, "version", "when"))} by ${str(field(page, "version", "by", "displayName")) || "unknown"}`,
      );
    const url = webUrl(page);
    if (url) header.push(`URL: ${url}`);
    // linkedom and turndown load on the first page fetched, not at start-up.
    const { storageToMarkdown } = await import("./atlassian/storage.js");
    const markdown = storageToMarkdown(str(field(page, "body", "storage", "value")));
    const out = truncateText(`${header.join("\n")}\n\n${markdown || "(empty page)"}`, maxLength);
    return okResult(out.text, `Fetched Confluence page ${id}: ${title}`, {
      id,
      title,
      url,
      truncated: out.truncated,
    });
  }

  async function search(query: string, limit: number, maxLength: number, signal: AbortSignal) {
    const cql = `type=page AND text ~ ${cqlString(query)}`;
    const got = await atlassianGet(
      deps,
      `/rest/api/content/search?cql=${encodeURIComponent(cql)}&limit=${limit}&expand=space`,
      `Confluence search ${JSON.stringify(query)}`,
      signal,
    );
    if ("error" in got) return got.error;
    const results = field(got.json, "results");
    const pages = Array.isArray(results) ? results : [];
    if (pages.length === 0)
      return okResult(`No Confluence pages match ${JSON.stringify(query)}.`, "No pages found");
    const lines = [
      `Confluence pages matching ${JSON.stringify(query)} (call again with page_id to read one):`,
    ];
    for (const page of pages) {
      const space = str(field(page, "space", "key"));
      lines.push(
        `- ${str(field(page, "title"))} (page_id ${str(field(page, "id"))}${space ? `, space ${space}` : ""}) ${webUrl(page)}`.trimEnd(),
      );
    }
    const out = truncateText(lines.join("\n"), maxLength);
    return okResult(out.text, `Found ${pages.length} Confluence page${pages.length === 1 ? "" : "s"}`, {
      ids: pages.map((p) => str(field(p, "id"))),
    });
  }

  return defineTool<ConfluenceFetchParams>({
    name: "confluence_fetch",
    displayName: "Confluence Fetch",
    description:
      "Reads a Confluence page by `page_id` (title, space, version and the body as Markdown), or searches " +
      "pages by text with `query` and lists matches with their page ids. Give exactly one of the two.",
    parameters: {
      type: "object",
      properties: {
        page_id: { type: "string", description: "The numeric page id, e.g. 98765 (from a page URL)." },
        query: { type: "string", description: "Words to search for in page text." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 50,
          description: "Search results to list (default 10).",
        },
        maxLength: {
          type: "integer",
          minimum: 1,
          description: `Maximum characters of output (default ${DEFAULT_MAX_LENGTH}).`,
        },
      },
      additionalProperties: false,
    },
    kind: "fetch",
    risk: "low",
    validate(p) {
      const hasId = p.page_id !== undefined;
      const hasQuery = p.query !== undefined;
      if (hasId === hasQuery) return "give exactly one of page_id and query";
      if (hasId && !/^[0-9]{1,20}$/.test(p.page_id!))
        return `page_id must be a numeric page id, got ${JSON.stringify(p.page_id)}`;
      if (hasQuery && p.query!.trim() === "") return "query must not be empty";
      return undefined;
    },
    describe: (p) =>
      p.page_id ? `Fetch Confluence page ${p.page_id}` : `Search Confluence for ${JSON.stringify(p.query)}`,
    locations: () => [base],
    async run(params, { signal }) {
      const maxLength = params.maxLength ?? DEFAULT_MAX_LENGTH;
      if (params.page_id) return fetchPage(params.page_id, maxLength, signal);
      return search(params.query!.trim(), params.limit ?? 10, maxLength, signal);
    },
  });
}
