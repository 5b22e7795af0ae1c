/**
 * @module tools/web-fetch
 * The `web_fetch` tool: fetches a URL through the SSRF-safe client and returns HTML as Markdown
 * (main content, or the elements a CSS selector picks), other text as text; binary content is refused.
 */
import { ConfigError, defineTool, errorResult, okResult, type Tool } from "../core/index.js";
import {
  DEFAULT_FETCH_MAX_BYTES,
  DEFAULT_FETCH_TIMEOUT_MS,
  httpError,
  NetError,
  parseAllowHosts,
  type Resolver,
  safeFetch,
} from "../net/index.js";
import { classify, decodeBody, mediaType } from "./web/content.js";

/** Parameters of `web_fetch`. */
export interface WebFetchParams {
  url: string;
  selector?: string;
  maxLength?: number;
}

/** What `web_fetch` is built from (config `[web]`). */
export interface WebFetchDeps {
  /** Private or loopback hosts it may reach: `host` or `host:port` (config `web.allow_hosts`). Default none. */
  allowHosts?: readonly string[];
  /** Total time per fetch, redirects included (config `web.timeout_ms`). Default `DEFAULT_FETCH_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Cap on downloaded (decoded) bytes (config `web.max_bytes`). Default `DEFAULT_FETCH_MAX_BYTES`. */
  maxBytes?: number;
  /** Name resolution, for tests. Default the system resolver. */
  lookup?: Resolver;
}

/** Output characters returned when the call gives no `maxLength`. */
export const DEFAULT_MAX_LENGTH = 50_000;
const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5";

/** `50000` → `50,000`. Not `toLocaleString`: its first call loads ICU's locale data (~70 ms at start-up). */
const n = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * Creates the `web_fetch` tool.
 * @param deps.allowHosts private hosts to permit (default none); `timeoutMs` and `maxBytes` default to the
 *   network client's (30 s, 10 MiB).
 * @example registry.register(createWebFetchTool({ allowHosts: ["127.0.0.1:4000"] }))
 * @throws ConfigError for a malformed allow-list entry.
 */
export function createWebFetchTool(deps: WebFetchDeps = {}): Tool<WebFetchParams> {
  try {
    parseAllowHosts(deps.allowHosts ?? []);
  } catch (error) {
    throw new ConfigError(
      `web.${(error as Error).message.replace("invalid allow_hosts", "allow_hosts: invalid")}`,
    );
  }
  const allowHosts = [...(deps.allowHosts ?? [])];
  const timeoutMs = deps.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxBytes = deps.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;

  return defineTool<WebFetchParams>({
    name: "web_fetch",
    displayName: "Web Fetch",
    description:
      "Fetches a web page and returns its content: HTML as Markdown (the main content, or only the elements " +
      "matching `selector`), other text as is. Binary content is refused. Output longer than `maxLength` " +
      `characters (default ${n(DEFAULT_MAX_LENGTH)}) is truncated, with a note saying how much was omitted. ` +
      "Local and private network addresses are refused.",
    parameters: {
      type: "object",
      properties: {
        url: { type: "string", description: "The http or https URL to fetch." },
        selector: {
          type: "string",
          description:
            "CSS selector: return only the matching elements (e.g. `main`, `#content`, `table.data`).",
        },
        maxLength: {
          type: "integer",
          minimum: 1,
          description: `Maximum characters of output (default ${DEFAULT_MAX_LENGTH}).`,
        },
      },
      required: ["url"],
      additionalProperties: false,
    },
    kind: "fetch",
    risk: "medium",
    argKinds: { url: "url" },
    validate(params) {
      let url: URL;
      try {
        url = new URL(params.url);
      } catch {
        return `url is not a valid URL: ${params.url}`;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return `url must be an http or https URL, got ${url.protocol.slice(0, -1)}`;
      }
      if (params.selector !== undefined && params.selector.trim() === "") return "selector must not be empty";
      return undefined;
    },
    describe: (p) => (p.selector ? `Fetch ${p.url} (selector ${p.selector})` : `Fetch ${p.url}`),
    locations: (p) => [p.url],
    confirmation: (p) => ({ type: "fetch", locations: [p.url] }),
    async run(params, { signal }) {
      const maxLength = params.maxLength ?? DEFAULT_MAX_LENGTH;
      let res: Awaited<ReturnType<typeof safeFetch>>;
      try {
        res = await safeFetch(params.url, {
          signal,
          timeoutMs,
          maxBytes,
          allowHosts,
          accept: ACCEPT,
          lookup: deps.lookup,
        });
      } catch (error) {
        if (error instanceof NetError)
          return errorResult(error.type, error.message, { ...error.toDetails() });
        throw error;
      }
      if (res.status >= 400) {
        const error = httpError(res);
        return errorResult("http_error", error.message, { ...error.toDetails() });
      }
      const contentType = res.headers["content-type"];
      const kind = classify(contentType, res.body);
      if (kind === "binary") {
        const size = res.truncated ? `more than ${n(res.body.length)}` : n(res.body.length);
        return errorResult(
          "execution_failed",
          `refusing binary content from ${res.url}: ${mediaType(contentType) || "unknown type"}, ${size} bytes. ` +
            "web_fetch returns only HTML and text.",
          { url: res.url, contentType: mediaType(contentType), bytes: res.body.length },
        );
      }
      const header = [`URL: ${res.url}`];
      let body: string;
      let notes: string[] = [];
      const text = decodeBody(contentType, res.body, kind === "html");
      if (kind === "html") {
        // The HTML stack (linkedom, Readability, turndown) loads on the first HTML page, not at start-up.
        const html = await import("./web/html.js");
        let page: ReturnType<typeof html.pageToMarkdown>;
        try {
          page = html.pageToMarkdown(text, {
            baseUrl: res.url,
            selector: params.selector,
            wantChars: maxLength,
          });
        } catch (error) {
          if (error instanceof html.SelectorError)
            return errorResult("invalid_params", error.message, { url: res.url });
          throw error;
        }
        if (page.title) header.push(`Title: ${page.title}`);
        if (params.selector !== undefined) {
          header.push(
            `Selector: ${params.selector} (${n(page.matches ?? 0)} matching element${page.matches === 1 ? "" : "s"})`,
          );
        }
        body = page.markdown;
        if (params.selector !== undefined && page.matches === 0) {
          body = `No elements match the selector ${JSON.stringify(params.selector)}.`;
        }
        if (page.omittedHtmlChars > 0) {
          notes.push(`${n(page.omittedHtmlChars)} further characters of HTML were not converted`);
        }
      } else {
        header.push(`Content-Type: ${mediaType(contentType) || "text/plain"}`);
        body = text;
        if (params.selector !== undefined) notes.push("the selector was ignored: the content is not HTML");
      }
      ({ body, notes } = truncate(body, maxLength, notes));
      if (res.truncated)
        notes.push(`the response was larger than ${n(maxBytes)} bytes; only that much was read`);
      const footer = notes.length ? `\n\n[... ${notes.join("; ")} ...]` : "";
      const llmContent = `${header.join("\n")}\n\n${body}${footer}`;
      const cut = notes.length > 0 ? ", truncated" : "";
      return okResult(llmContent, `Fetched ${res.url} (${n(body.length)} characters${cut})`, {
        url: res.url,
        status: res.status,
        contentType: mediaType(contentType),
        truncated: notes.length > 0,
      });
    },
  });
}

/** Cuts `body` to `maxLength` characters, adding a note that says how much was omitted. */
function truncate(body: string, maxLength: number, notes: string[]): { body: string; notes: string[] } {
  if (body.length <= maxLength) return { body, notes };
  const omitted = body.length - maxLength;
  return {
    body: body.slice(0, maxLength),
    notes: [
      `output truncated: showing the first ${n(maxLength)} of ${n(body.length)} characters, ${n(omitted)} omitted; ` +
        "use a selector or a larger maxLength to see more",
      ...notes,
    ],
  };
}
