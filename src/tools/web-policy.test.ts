/**
 * The web tools through the real pipeline (registry → policy engine with the url plug-in → tool): URL rules
 * decide on parsed hosts, and even a call the policy allows cannot reach a forbidden address (canary).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallResult, executeCall, type PipelineDeps, type Tool, ToolRegistry } from "../core/index.js";
import { createUrlKind } from "../policy/conditions/url.js";
import { PolicyEngine, parsePolicy } from "../policy/index.js";
import { startCanary, startServer, type TestServer } from "../test-support/web-servers.js";
import { createWebFetchTool } from "./web-fetch.js";

let canary: TestServer;
let front: TestServer;

beforeAll(async () => {
  canary = await startCanary();
  front = await startServer((req, res) => {
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
    if (to) {
      res.writeHead(302, { location: to });
      return res.end();
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("front page");
  });
});

afterAll(async () => {
  await canary.close();
  await front.close();
});

async function pipeline(policyToml: string): Promise<PipelineDeps> {
  const plugins = [createUrlKind()];
  const tool = createWebFetchTool({
    allowHosts: [front.hostPort],
    // `evil.example` is a public-looking name that resolves to loopback.
    lookup: async (host) => {
      if (host === "evil.example") return [{ address: "127.0.0.1", family: 4 }];
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    },
  });
  const registry = new ToolRegistry({ logger: { warn: () => undefined } });
  registry.register(tool as unknown as Tool);
  const policy = await parsePolicy(policyToml, "policy.toml", { plugins, tools: [tool as unknown as Tool] });
  return { registry, decider: new PolicyEngine({ policy, plugins, roots: [process.cwd()] }) };
}

const fetchCall = (url: string) => ({ name: "web_fetch", args: { url } });

describe("web_fetch through the pipeline: URLs the policy allows but the network layer refuses", () => {
  const p = () => canary.port;
  const urls: Array<[string, () => string]> = [
    ["decimal", () => `http://2130706433:${p()}/`],
    ["octal", () => `http://0177.0.0.1:${p()}/`],
    ["hex", () => `http://0x7f000001:${p()}/`],
    ["short", () => `http://127.1:${p()}/`],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.1]:${p()}/`],
    ["IPv6 loopback", () => `http://[::1]:${p()}/`],
    ["zero", () => `http://0:${p()}/`],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["metadata name", () => "http://metadata.google.internal/computeMetadata/v1/"],
    ["localhost.", () => `http://localhost.:${p()}/`],
    ["userinfo", () => `http://allowed.com@127.0.0.1:${p()}/`],
    ["fragment @", () => `http://127.0.0.1:${p()}#@allowed.com/`],
    ["name resolving to loopback", () => `http://evil.example:${p()}/`],
    ["redirect to the canary", () => `${front.origin}/?to=${encodeURIComponent(`http://127.0.0.1:${p()}/`)}`],
    ["redirect to metadata", () => `${front.origin}/?to=${encodeURIComponent("http://169.254.169.254/")}`],
  ];

  it.each(urls)(
    "%s: allowed by policy, refused by the network layer, canary untouched",
    async (_note, url) => {
      const deps = await pipeline('default = "deny"\n[[rules]]\ntool = "web_fetch"\ndecision = "allow"\n');
      const result: CallResult = await executeCall(deps, fetchCall(url()));
      expect(result.decision).toBe("allow");
      expect(result.ok).toBe(false);
      expect(result.error?.type).toBe("network");
      expect(result.error?.message).toMatch(/^refused to fetch |^refused .*credentials/);
      expect(canary.requests).toEqual([]);
    },
  );

  it("fetches the allowed front server", async () => {
    const deps = await pipeline('default = "deny"\n[[rules]]\ntool = "web_fetch"\ndecision = "allow"\n');
    const result = await executeCall(deps, fetchCall(`${front.origin}/`));
    expect(result.ok).toBe(true);
    expect(result.llmContent).toBe(`URL: ${front.origin}/\nContent-Type: text/plain\n\nfront page`);
  });
});

describe("URL conditions decide on the parsed host", () => {
  const policy = [
    'default = "deny"',
    "[[rules]]",
    'tool = "web_fetch"',
    'decision = "allow"',
    'when.url = { host = ["docs.python.org", "*.mozilla.org"], scheme = "https" }',
    "[[rules]]",
    'tool = "web_fetch"',
    'decision = "deny"',
    'when.url = { host = "127.0.0.1" }',
    'message = "no loopback"',
  ].join("\n");

  it.each([
    ["https://docs.python.org/3/", "allow"],
    ["https://developer.mozilla.org/en-US/", "allow"],
    ["https://mozilla.org/", "deny"],
    ["https://evilmozilla.org/", "deny"],
    ["http://docs.python.org/3/", "deny"],
    ["https://docs.python.org.evil.com/", "deny"],
    ["https://docs.python.org@evil.com/", "deny"],
    ["http://2130706433/", "deny"],
    ["http://0x7f.1/", "deny"],
  ])("%s → %s", async (url, want) => {
    const deps = await pipeline(policy);
    // Only the decision matters here; allowed calls would reach the internet, so ask the policy directly.
    const tool = deps.registry.get("web_fetch")!;
    const invocation = tool.build({ url });
    const decision = await deps.decider.decide({
      tool,
      invocation,
      args: { url },
      risk: invocation.riskFor(),
    });
    expect(decision.decision).toBe(want);
  });

  it("a deny rule on the host stops a disguised loopback URL before it runs", async () => {
    const deps = await pipeline(policy);
    const result = await executeCall(deps, fetchCall(`http://0177.0.0.1:${canary.port}/`));
    expect(result.decision).toBe("deny");
    expect(result.error?.type).toBe("denied_by_policy");
    expect(canary.requests).toEqual([]);
  });
});
