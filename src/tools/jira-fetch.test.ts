import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ToolInputError } from "../core/index.js";
import { atlassianFromEnv } from "./atlassian/client.js";
import { createJiraFetchTool } from "./jira-fetch.js";

const fixture = (name: string) =>
  readFileSync(new URL(`./atlassian/testdata/${name}`, import.meta.url), "utf8");

interface Seen {
  url: string;
  authorization: string | undefined;
}

/** A local server speaking the Jira REST API's wire format, from recorded-shape fixtures. */
function jiraServer(seen: Seen[], other: () => string) {
  return http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    const path = (req.url ?? "").split("?")[0];
    const json = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "application/json;charset=UTF-8" });
      res.end(body);
    };
    if (path === "/rest/api/3/issue/PROJ-123") return json(200, fixture("jira-issue-v3.json"));
    if (path === "/rest/api/2/issue/OPS-42") return json(200, fixture("jira-issue-v2.json"));
    if (path === "/rest/api/2/issue/DENY-1") {
      res.writeHead(401, { "content-type": "text/plain" });
      return res.end("Client must be authenticated to access this resource.");
    }
    if (path === "/rest/api/2/issue/RED-1") {
      res.writeHead(302, { location: `${other()}/rest/api/2/issue/RED-1` });
      return res.end();
    }
    if (path === "/rest/api/2/issue/HTML-1") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>login</html>");
    }
    json(
      404,
      '{"errorMessages":["Issue does not exist or you do not have permission to see it."],"errors":{}}',
    );
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("jira_fetch", () => {
  const seen: Seen[] = [];
  let base = "";
  let otherBase = "";
  const server = jiraServer(seen, () => otherBase);
  const other = http.createServer((_req, res) => res.end("{}"));

  beforeAll(async () => {
    base = await listen(server);
    otherBase = await listen(other);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await new Promise((r) => other.close(r));
  });

  const run = (tool: ReturnType<typeof createJiraFetchTool>, params: Parameters<typeof tool.build>[0]) =>
    tool.build(params).run(new AbortController().signal);

  it("reads a Cloud (v3) issue with basic auth and converts ADF to text", async () => {
    const tool = createJiraFetchTool({ baseUrl: `${base}/`, token: "tok", email: "bot@acme.example" });
    const result = await run(tool, { issue_key: "PROJ-123" });
    expect(result.error).toBeUndefined();
    expect(seen.at(-1)?.url).toBe(
      "/rest/api/3/issue/PROJ-123?fields=summary,status,issuetype,priority,assignee,reporter,created,updated,labels,description,comment",
    );
    expect(seen.at(-1)?.authorization).toBe(
      `Basic ${Buffer.from("bot@acme.example:tok").toString("base64")}`,
    );
    expect(result.llmContent).toBe(
      [
        "PROJ-123: Login fails for SSO users after token refresh",
        "Status: In Progress | Type: Bug | Priority: High",
        "Assignee: Jane Doe | Reporter: Li Wei",
        "Created: 2024-03-04T09:15:22.123+0100 | Updated: 2024-03-06T17:02:10.456+0100",
        "Labels: auth, sso",
        `URL: ${base}/browse/PROJ-123`,
        "",
        "Description:",
        "After the access token is refreshed, **SSO** users are sent back to the login page.",
        "",
        "### Steps to reproduce",
        "",
        "1. Log in with Okta",
        "2. Wait 15 minutes",
        "",
        "```text\n401 Unauthorized: token expired\n```",
        "",
        "See [the runbook](https://acme.atlassian.net/wiki/spaces/ENG/pages/98765) and ask @Jane Doe 👍",
        "",
        "| Env | Affected |\n| --- | --- |\n| prod | yes |",
        "",
        "[attachment]",
        "",
        "Comments (2 of 2, newest last):",
        "--- Li Wei, 2024-03-05T10:00:00.000+0100:",
        "Reproduced on staging.",
        "--- Jane Doe, 2024-03-06T16:58:00.000+0100:",
        "Fix is in review: https://github.com/acme/app/pull/42",
      ].join("\n"),
    );
    expect(result.returnDisplay).toBe("Fetched PROJ-123: Login fails for SSO users after token refresh");
  });

  it("reads a Server (v2) issue with a bearer token, wiki text and no assignee", async () => {
    const tool = createJiraFetchTool({ baseUrl: base, token: "pat" });
    const result = await run(tool, { issue_key: "OPS-42", maxComments: 5 });
    expect(seen.at(-1)?.authorization).toBe("Bearer pat");
    expect(result.llmContent).toContain("OPS-42: Rotate the TLS certificate on the edge proxies");
    expect(result.llmContent).toContain("Assignee: Unassigned | Reporter: Maria Koch");
    expect(result.llmContent).toContain("h3. Steps\r\n# Issue a new cert");
    expect(result.llmContent).toContain(
      "--- Tran Nguyen, 2024-05-11T09:30:00.000+0200:\nCert ordered, ETA Friday.",
    );
  });

  it("limits the comments to the newest ones", async () => {
    const tool = createJiraFetchTool({ baseUrl: base, token: "t", email: "e@x", apiVersion: 3 });
    const result = await run(tool, { issue_key: "PROJ-123", maxComments: 1 });
    expect(result.llmContent).toContain("Comments (1 of 2, newest last):\n--- Jane Doe");
    expect(result.llmContent).not.toContain("Reproduced on staging.");
  });

  it("reports a missing issue with Jira's own message", async () => {
    const result = await run(createJiraFetchTool({ baseUrl: base, token: "t" }), { issue_key: "NOPE-1" });
    expect(result.error).toMatchObject({
      type: "http_error",
      message:
        "Jira issue NOPE-1 was not found (HTTP 404): Issue does not exist or you do not have permission to see it.",
    });
  });

  it("reports refused credentials", async () => {
    const result = await run(createJiraFetchTool({ baseUrl: base, token: "t" }), { issue_key: "DENY-1" });
    expect(result.error?.message).toBe(
      "the server refused the credentials for Jira issue DENY-1 (HTTP 401); check the token and its permissions",
    );
  });

  it("refuses a redirect to another local host (same network safety as web_fetch)", async () => {
    const result = await run(createJiraFetchTool({ baseUrl: base, token: "t" }), { issue_key: "RED-1" });
    expect(result.error?.type).toBe("network");
    expect(result.error?.message).toContain("refused to fetch");
  });

  it("reports a response that is not JSON", async () => {
    const result = await run(createJiraFetchTool({ baseUrl: base, token: "t" }), { issue_key: "HTML-1" });
    expect(result.error).toMatchObject({
      type: "execution_failed",
      message: `the server did not return JSON for Jira issue HTML-1 (${base}/rest/api/2/issue/HTML-1?fields=summary,status,issuetype,priority,assignee,reporter,created,updated,labels,description,comment)`,
    });
  });

  const badKeys = ["../../admin", "PROJ-123/../x", "proj-1", "PROJ-0", "PROJ-1?x=1", "P-1", ""];
  for (const key of badKeys) {
    it(`refuses the issue key ${JSON.stringify(key)}`, () => {
      const tool = createJiraFetchTool({ baseUrl: base, token: "t" });
      expect(() => tool.build({ issue_key: key })).toThrow(ToolInputError);
      expect(() => tool.build({ issue_key: key })).toThrow(
        `issue_key must be a Jira issue key like PROJ-123, got ${JSON.stringify(key)}`,
      );
    });
  }
});

describe("atlassianFromEnv", () => {
  it("is undefined when not configured", () => {
    expect(atlassianFromEnv("JIRA", undefined, {})).toBeUndefined();
    expect(atlassianFromEnv("JIRA", undefined, { JIRA_BASE_URL: "https://j.example" })).toBeUndefined();
  });
  it("reads the default variables", () => {
    const env = { JIRA_BASE_URL: "https://j.example", JIRA_API_TOKEN: "t", JIRA_EMAIL: "e@x" };
    expect(atlassianFromEnv("JIRA", undefined, env)).toEqual({
      baseUrl: "https://j.example",
      token: "t",
      email: "e@x",
    });
  });
  it("reads the variables the config names", () => {
    const section = { baseUrl: "https://c.example/wiki", tokenEnv: "MY_TOKEN", emailEnv: "MY_MAIL" };
    expect(atlassianFromEnv("CONFLUENCE", section, { MY_TOKEN: "x" })).toEqual({
      baseUrl: "https://c.example/wiki",
      token: "x",
    });
  });
  it("refuses a base URL that is not http(s)", () => {
    expect(() => atlassianFromEnv("JIRA", { baseUrl: "ftp://j" }, { JIRA_API_TOKEN: "t" })).toThrow(
      ConfigError,
    );
    expect(() => atlassianFromEnv("JIRA", { baseUrl: "nope" }, { JIRA_API_TOKEN: "t" })).toThrow(
      "jira.base_url is not a valid URL: nope",
    );
  });
});
