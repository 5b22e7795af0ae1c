/**
 * Security review of shell command analysis, the shell tool and the SSRF-safe client: each case is a hole a
 * reviewer found (or a suspicion that held), replayed through `createToolgate` exactly as a host builds it.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { safeFetch } from "../net/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { openGate } from "./fixtures.js";

/** The adversarial table's policy: allow only ls, cat, grep, echo, git status; deny rm anywhere. */
const POLICY = `default = "ask"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["ls", "cat", "grep", "echo", "git status"] }

[[rules]]
tool = "shell"
decision = "deny"
when.command = { prefix = ["rm"] }
`;

let root: string;
let gate: Toolgate;

beforeAll(async () => {
  root = await tempWorkspace({ "keep.txt": "keep\n" });
  gate = await openGate(root, { policyText: POLICY, env: { HOME: root } });
});
afterAll(async () => {
  await gate.close();
  await rm(root, { recursive: true, force: true });
});

async function decisionOf(command: string): Promise<string> {
  const result = await gate.check({ name: "shell", args: { command } });
  return result.ok ? result.decision.decision : `invalid:${result.error.type}`;
}

describe("based numbers: the grammar's `number` node holds a substitution bash runs", () => {
  // tree-sitter-bash parses `10#$(cmd)` as a `number` with a command_substitution child; the analysis took
  // numbers for plain leaves, so the allow rule on `echo` vouched for `echo 10#$(touch pwned)`.
  it.each([
    "echo 10#$(touch pwned)",
    "cat 64#`touch pwned`",
    "ls -10#$(touch pwned)",
    "echo {10#$(touch pwned)..3}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
    "echo 10#${HOME}",
  ])("%s is not allowed", async (command) => {
    expect(await decisionOf(command)).toBe("ask");
  });

  it("the deny rule sees rm inside a based number", async () => {
    expect(await decisionOf("echo 10#$(rm keep.txt)")).toBe("deny");
  });

  it("gate.execute does not run the substitution (nobody answers the ask)", async () => {
    const result = await gate.execute({ name: "shell", args: { command: "echo 10#$(touch pwned)" } });
    expect(result).toMatchObject({ ok: false, decision: "ask", error: { type: "denied_by_policy" } });
    expect(existsSync(join(root, "pwned"))).toBe(false);
  });

  it("a plain based number is still allowed and runs", async () => {
    const result = await gate.execute({ name: "shell", args: { command: "echo 10#20" } });
    expect(result).toMatchObject({ ok: true, decision: "allow", llmContent: "10#20\n[exit code 0]" });
  });
});

describe("safeFetch: a stack of content-encodings", () => {
  // Each coding is a zlib stream with its own state: 2 500 `gzip,` in a 12 KB header cost ~120 MB of RSS.
  it("more than four codings are refused before any decoder is built", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-encoding": Array(5).fill("gzip").join(", ") });
      res.end(gzipSync(gzipSync(gzipSync(gzipSync(gzipSync("hello"))))));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/`;
    try {
      await expect(safeFetch(url, { allowHosts: [`127.0.0.1:${port}`] })).rejects.toMatchObject({
        message: `cannot decode ${url}: more than 4 content-encodings`,
      });
    } finally {
      server.close();
    }
  });

  it("four codings still decode", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip, gzip, gzip, gzip" });
      res.end(gzipSync(gzipSync(gzipSync(gzipSync("hello")))));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const res = await safeFetch(`http://127.0.0.1:${port}/`, { allowHosts: [`127.0.0.1:${port}`] });
      expect(res.body.toString()).toBe("hello");
    } finally {
      server.close();
    }
  });
});
