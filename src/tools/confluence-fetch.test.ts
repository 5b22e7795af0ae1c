import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolInputError } from "../core/index.js";
import { storageToMarkdown } from "./atlassian/storage.js";
import { cqlString, createConfluenceFetchTool } from "./confluence-fetch.js";

const fixture = (name: string) =>
  readFileSync(new URL(`./atlassian/testdata/${name}`, import.meta.url), "utf8");

describe("confluence_fetch", () => {
  const seen: string[] = [];
  let base = "";
  // Confluence Cloud serves the REST API under /wiki.
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    const url = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body);
    };
    if (url.pathname === "/wiki/rest/api/content/98765") return json(200, fixture("confluence-page.json"));
    if (url.pathname === "/wiki/rest/api/content/search") {
      const cql = url.searchParams.get("cql") ?? "";
      if (cql.includes("nothing")) return json(200, '{"results":[],"start":0,"limit":10,"size":0}');
      return json(200, fixture("confluence-search.json"));
    }
    json(
      404,
      '{"statusCode":404,"data":{"authorized":false,"valid":true},"message":"No content found with id: ContentId{id=1}"}',
    );
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wiki`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const tool = () => createConfluenceFetchTool({ baseUrl: base, token: "t", email: "e@x" });
  const run = (params: Parameters<ReturnType<typeof tool>["build"]>[0]) =>
    tool().build(params).run(new AbortController().signal);

  it("reads a page and converts its storage body to Markdown", async () => {
    const result = await run({ page_id: "98765" });
    expect(seen.at(-1)).toBe("/wiki/rest/api/content/98765?expand=body.storage,version,space");
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe(
      [
        "Title: Deploy Guide",
        "Page id: 98765",
        "Space: ENG (Engineering)",
        "Version: 7, 2024-02-01T12:00:00.000Z by Jane Doe",
        `URL: ${base}/spaces/ENG/pages/98765/Deploy+Guide`,
        "",
        "# Deploy",
        "",
        "Run `make deploy` from the release branch. See Rollback Procedure if it fails.",
        "",
        "```bash",
        "make deploy ENV=prod && curl -fsS https://status.acme.example/health | jq .ok",
        "```",
        "",
        "> **info:**",
        "> ",
        "> Deploys are frozen on Fridays.",
        "",
        "## Checklist",
        "",
        "-   \\[x\\] Tag the release",
        "-   \\[ \\] Announce in #deploys",
        "",
        "\\[image: pipeline.png\\]",
        "",
        "| Env | Owner |",
        "| --- | --- |",
        "| prod | SRE |",
      ].join("\n"),
    );
  });

  it("searches with CQL and lists page ids", async () => {
    const result = await run({ query: 'deploy "prod"' });
    const url = new URL(seen.at(-1)!, "http://x");
    expect(url.searchParams.get("cql")).toBe('type=page AND text ~ "deploy \\"prod\\""');
    expect(url.searchParams.get("limit")).toBe("10");
    expect(result.llmContent).toBe(
      [
        'Confluence pages matching "deploy \\"prod\\"" (call again with page_id to read one):',
        `- Deploy Guide (page_id 98765, space ENG) ${base}/spaces/ENG/pages/98765/Deploy+Guide`,
        `- Deploy freeze calendar (page_id 131074, space ENG) ${base}/spaces/ENG/pages/131074/Deploy+freeze+calendar`,
      ].join("\n"),
    );
  });

  it("says when nothing matches", async () => {
    expect((await run({ query: "nothing here" })).llmContent).toBe(
      'No Confluence pages match "nothing here".',
    );
  });

  it("reports a missing page with Confluence's message", async () => {
    const result = await run({ page_id: "1" });
    expect(result.error).toMatchObject({
      type: "http_error",
      message: "Confluence page 1 was not found (HTTP 404): No content found with id: ContentId{id=1}",
    });
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ["neither argument", {}, "give exactly one of page_id and query"],
    ["both arguments", { page_id: "1", query: "x" }, "give exactly one of page_id and query"],
    [
      "a path in page_id",
      { page_id: "1/../../admin" },
      'page_id must be a numeric page id, got "1/../../admin"',
    ],
    ["an empty query", { query: "  " }, "query must not be empty"],
  ];
  for (const [note, params, message] of bad) {
    it(`refuses ${note}`, () => {
      expect(() => tool().build(params)).toThrow(ToolInputError);
      expect(() => tool().build(params)).toThrow(message);
    });
  }
});

describe("storage format conversion", () => {
  it("keeps code from CDATA intact, including markup characters", () => {
    const storage =
      '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[if (a < b && c) { x = "<p>"; }]]></ac:plain-text-body></ac:structured-macro>';
    expect(storageToMarkdown(storage)).toBe('```\nif (a < b && c) { x = "<p>"; }\n```');
  });
  it("drops unknown bodiless macros", () => {
    expect(storageToMarkdown('<p>a</p><ac:structured-macro ac:name="toc" /><p>b</p>')).toBe("a\n\nb");
  });
  it("keeps a table with a pipe in a cell as one table", () => {
    expect(
      storageToMarkdown("<table><tr><th>a|b</th><th>c</th></tr><tr><td>1</td><td>2</td></tr></table>"),
    ).toBe("| a\\|b | c |\n| --- | --- |\n| 1 | 2 |");
  });
  it("quotes CQL strings", () => {
    expect(cqlString('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
  });
});
