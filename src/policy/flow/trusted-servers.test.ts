/**
 * `[labels] trusted_servers` is a security key (docs/injection.md): only the user's own config — the `config`
 * option, `toolgate --config FILE` — names MCP servers whose results are trusted. A workspace's
 * `.toolgate/config.toml` never does, whether the workspace is trusted or not (it came with the repository);
 * toolgate reads no other user-level config file. Seen through the label of a tool from server `srv`.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, FlowSession, okResult } from "../../core/index.js";
import { createInProcessStateBackend } from "../../state/index.js";
import { createToolgate, type ToolgateOptions } from "../../toolgate.js";

const TRUSTING = '[labels]\ntrusted_servers = ["srv"]\n';
let root: string;
let own: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "tg-trusted-servers-"));
  await mkdir(join(root, ".toolgate"));
  await writeFile(join(root, ".toolgate", "config.toml"), TRUSTING);
  own = join(await mkdtemp(join(tmpdir(), "tg-own-config-")), "config.toml");
  await writeFile(own, TRUSTING);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(join(own, ".."), { recursive: true, force: true });
});

/** A tool that says it comes from MCP server `srv` (as the pool's tools do). */
const fromServer = defineTool({
  name: "srv_lookup",
  description: "A lookup on server srv.",
  parameters: { type: "object", properties: {} },
  kind: "read",
  risk: "low",
  source: "mcp:srv",
  run: async () => okResult("an answer from srv"),
});

async function integrityWith(options: Partial<ToolgateOptions>): Promise<string> {
  const gate = await createToolgate({
    roots: [root],
    cwd: root,
    policyText: 'default = "allow"\n',
    state: createInProcessStateBackend(),
    tools: [fromServer],
    hooks: false,
    logger: { warn: () => undefined },
    ...options,
  });
  try {
    const session = new FlowSession();
    const result = await gate.execute({ name: "srv_lookup", args: {} }, { session });
    expect(result.ok, result.llmContent).toBe(true);
    return result.label.integrity;
  } finally {
    await gate.close();
  }
}

describe("[labels] trusted_servers", () => {
  it("is not read from an untrusted workspace's config", async () => {
    expect(await integrityWith({ trustWorkspace: false })).toBe("untrusted");
  });

  it("is not read from a trusted workspace's config either (it came with the repository)", async () => {
    expect(await integrityWith({ trustWorkspace: true })).toBe("untrusted");
  });

  it("is read from the user's own config: the config option, or a file given with --config", async () => {
    expect(await integrityWith({ config: { labels: { trusted_servers: ["srv"] } } })).toBe("trusted");
    expect(await integrityWith({ config: own })).toBe("trusted");
  });
});
