/**
 * Leaving the sandbox is a decision the policy or a person makes: the shell's `sandbox` argument, rules with
 * `sandbox = "network" | "off"`, what a person is shown, the profiles (`read-only`, extra writable and hidden
 * paths), `auto` on a machine without bwrap, and an explicit mode that cannot be had — all through the real
 * pipeline and real bwrap.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import type { ConfirmationDetails } from "../core/index.js";
import { createToolgate, type ToolgateOptions } from "../toolgate.js";
import { BackgroundProcesses } from "../tools/shell/index.js";
import { createShellTool } from "../tools/shell.js";

let base: string;
let ws: string;
let canary: Server;
let hits = 0;
const sockets = new Set<import("node:net").Socket>();
let port = 0;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-grants-"));
  ws = join(base, "ws");
  await mkdir(ws);
  canary = createServer((socket) => {
    hits++;
    sockets.add(socket);
    socket.on("error", () => {}); // npm resets the connection when it cannot read the answer
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
  });
  await new Promise<void>((done) => canary.listen(0, "127.0.0.1", done));
  port = (canary.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => canary.close(done));
  await rm(base, { recursive: true, force: true });
});

/** Reaches the canary the way a program that honours HTTP_PROXY does (the only way out of a network grant). */
const reach = () => `curl -sS http://127.0.0.1:${port}/ && echo reached`;
/** The canary is on the host's loopback: a network grant reaches it only because the config names it. */
const named = () => [`127.0.0.1:${port}`];

async function gateWith(policyText: string, extra: Partial<ToolgateOptions> = {}) {
  const asked: ConfirmationDetails[] = [];
  const gate = await createToolgate({
    roots: [ws],
    policyText,
    config: { sandbox: { mode: "workspace-write", allow_hosts: named() } },
    ...extra,
  });
  gate.bus.onConfirmation(async (request) => {
    asked.push(request.details);
    return { approved: true };
  });
  return { gate, asked };
}

describe("the shell's sandbox argument", () => {
  it("asking for the network is asked about even under an allow rule, shows why, and gets it once approved", async () => {
    const { gate, asked } = await gateWith('[[rules]]\ntool = "shell"\ndecision = "allow"\n');
    const before = hits;
    const result = await gate.execute({
      name: "shell",
      args: { command: reach(), sandbox: "network", justification: "needs the package registry" },
    });
    await gate.close();
    expect(result.decision).toBe("ask");
    expect(result.reason).toContain("it asks to run with network access, which no rule grants");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.sandbox).toContain("WITH NETWORK");
    // The model's justification is quoted on its own, never inside toolgate's sandbox line.
    expect(asked[0]!.justification).toBe("needs the package registry");
    expect(asked[0]!.sandbox).not.toContain("needs the package registry");
    expect(result.llmContent).toContain("reached");
    expect(result.sandbox).toBe("workspace-write+network");
    expect(hits - before).toBe(1);
  });

  it("without approval, a request to leave the sandbox is refused (nobody to ask)", async () => {
    const gate = await createToolgate({
      roots: [ws],
      policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
      config: { sandbox: { mode: "workspace-write" } },
    });
    const result = await gate.execute({
      name: "shell",
      args: { command: "true", sandbox: "off", justification: "trust me" },
    });
    await gate.close();
    expect(result.decision).toBe("ask");
    expect(result.error?.type).toBe("denied_by_policy");
  });

  it("a request to run outside the sandbox says so plainly to the person approving", async () => {
    const { gate, asked } = await gateWith(
      '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "network"\n',
    );
    const result = await gate.execute({
      name: "shell",
      args: {
        command: "echo out > /tmp/marker-outside && echo done",
        sandbox: "off",
        justification: "docker",
      },
    });
    await gate.close();
    expect(result.decision).toBe("ask");
    expect(asked[0]!.sandbox).toContain("NONE: this command runs outside the sandbox");
    expect(asked[0]!.sandbox).toContain("the command asks to run OUTSIDE the sandbox");
    expect(asked[0]!.justification).toBe("docker");
    expect(result.sandbox).toBe("off:granted");
  });

  it("a justification is required", async () => {
    const { gate } = await gateWith('[[rules]]\ntool = "shell"\ndecision = "allow"\n');
    const result = await gate.execute({ name: "shell", args: { command: "true", sandbox: "network" } });
    await gate.close();
    expect(result.error?.type).toBe("invalid_params");
    expect(result.error?.message).toContain('justification is required when sandbox is "network"');
  });
});

describe("rules that grant a way out", () => {
  const policy = [
    '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = ["npm install"] }\nsandbox = "network"',
    '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = ["true", "echo"] }',
  ].join("\n");

  it("a matching command gets the network it did not ask for; others stay sealed", async () => {
    const { gate, asked } = await gateWith(policy);
    const before = hits;
    // npm reaches for its registry, here the canary (the install itself fails on the canary's answer).
    const install = `npm install --registry=http://127.0.0.1:${port}/ left-pad --fetch-retries=0 --no-audit --no-fund`;
    const granted = await gate.execute({ name: "shell", args: { command: install, timeout: 60_000 } });
    const sealed = await gate.execute({ name: "shell", args: { command: `echo x; ${reach()}` } });
    await gate.close();
    expect(granted.decision, granted.reason).toBe("allow");
    expect(granted.sandbox).toBe("workspace-write+network");
    expect(hits - before).toBeGreaterThanOrEqual(1);
    // The second command is asked about (its redirection cannot be vouched for) and stays sealed.
    expect(asked.every((details) => !details.reason?.includes("asks to run"))).toBe(true);
    expect(sealed.sandbox).toBe("workspace-write");
    expect(sealed.llmContent).not.toContain("reached");
  });

  it("a grant of network does not cover a request to run unsandboxed", async () => {
    const { gate, asked } = await gateWith(policy);
    const result = await gate.execute({
      name: "shell",
      args: { command: "npm install", sandbox: "off", justification: "x" },
    });
    await gate.close();
    expect(result.decision).toBe("ask");
    expect(asked).toHaveLength(1);
  });

  it("a deny rule stays a deny", async () => {
    const { gate, asked } = await gateWith(
      `${policy}\n[[rules]]\ntool = "shell"\ndecision = "deny"\nwhen.command = { prefix = ["npm install"] }`,
    );
    const result = await gate.execute({
      name: "shell",
      args: { command: "npm install", sandbox: "network", justification: "x" },
    });
    await gate.close();
    expect(result.decision).toBe("deny");
    expect(asked).toEqual([]);
  });

  it("a rule's sandbox key is checked at load", async () => {
    await expect(
      createToolgate({
        roots: [ws],
        policyText: '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "yes"\n',
      }),
    ).rejects.toThrow('sandbox must be "network" or "off", got "yes"');
    await expect(
      createToolgate({
        roots: [ws],
        policyText: '[[rules]]\ntool = "shell"\ndecision = "deny"\nsandbox = "off"\n',
      }),
    ).rejects.toThrow("a deny rule runs nothing to grant it to");
  });
});

describe("profiles and settings", () => {
  it("read-only: nothing is writable but /tmp", async () => {
    const { gate } = await gateWith('[[rules]]\ntool = "shell"\ndecision = "allow"\n', {
      config: { sandbox: { mode: "read-only" } },
    });
    const result = await gate.execute({
      name: "shell",
      args: { command: "echo x > ro.txt; echo rc=$?; echo t > /tmp/t && cat /tmp/t" },
    });
    await gate.close();
    expect(result.sandbox).toBe("read-only");
    expect(result.llmContent).toContain("rc=1");
    expect(result.llmContent).toContain("\nt\n");
    expect(existsSync(join(ws, "ro.txt"))).toBe(false);
  });

  it("[sandbox] writable and hidden add paths; [sandbox] network opens the network for every command", async () => {
    const extra = join(base, "cache");
    const secret = join(base, "secret.txt");
    await mkdir(extra);
    await writeFile(secret, "hidden-value\n");
    const { gate } = await gateWith('[[rules]]\ntool = "shell"\ndecision = "allow"\n', {
      config: {
        sandbox: {
          mode: "workspace-write",
          writable: [extra],
          hidden: [secret],
          network: true,
          allow_hosts: named(),
        },
      },
    });
    const before = hits;
    const result = await gate.execute({
      name: "shell",
      args: { command: `echo w > ${extra}/f && cat ${secret}; ${reach()}` },
    });
    await gate.close();
    expect(readFileSync(join(extra, "f"), "utf8")).toBe("w\n");
    expect(result.llmContent).not.toContain("hidden-value");
    expect(result.sandbox).toBe("workspace-write+network");
    expect(hits - before).toBe(1);
  });

  it("[sandbox] is validated: an unknown mode is an error naming the key", () => {
    expect(() => parseConfig('[sandbox]\nmode = "strict"\n', "config.toml")).toThrow(
      'config.toml: sandbox.mode must be one of "auto", "workspace-write", "read-only", "off", not "strict"',
    );
  });

  it("the audit record carries the profile a command ran under", async () => {
    const records: { sandbox?: string; tool: string }[] = [];
    const { gate } = await gateWith('[[rules]]\ntool = "shell"\ndecision = "allow"\n', {
      audit: { write: (record) => void records.push(record) },
    });
    await gate.execute({ name: "shell", args: { command: "true" } });
    await gate.close();
    expect(records.find((r) => r.tool === "shell")?.sandbox).toBe("workspace-write");
  });
});

describe("fail closed", () => {
  it("a protected name that is a link: the command runs, what it points at stays unwritten, a file put in its place is moved away", async () => {
    // Outside /tmp (the sandbox's own /tmp is private): the target is on the read-only system inside.
    const outside = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "toolgate-grants-"));
    const linked = join(base, "linked-ws");
    await mkdir(linked);
    await writeFile(join(outside, "elsewhere.sh"), "original\n");
    await symlink(join(outside, "elsewhere.sh"), join(linked, ".envrc"));
    const gate = await createToolgate({
      roots: [linked],
      policyText: '[[rules]]\ntool = "shell"\ndecision = "allow"\n',
      config: { sandbox: { mode: "workspace-write" } },
    });
    const command = "echo pwned >> .envrc; rm .envrc && echo pwned > .envrc; echo ran";
    const result = await gate.execute({ name: "shell", args: { command } });
    await gate.close();
    const target = readFileSync(join(outside, "elsewhere.sh"), "utf8");
    await rm(outside, { recursive: true, force: true });
    expect(result.llmContent).toContain("ran");
    expect(target).toBe("original\n");
    expect(existsSync(join(linked, ".envrc")), "the .envrc the command wrote is still there").toBe(false);
    expect(result.llmContent).toContain("quarantine");
  });
});

describe("where bwrap cannot run", () => {
  const tool = (mode: "auto" | "workspace-write") =>
    createShellTool({
      resolveCwd: async () => ws,
      roots: [ws],
      processes: new BackgroundProcesses(),
      sandbox: { mode, network: false, writable: [], hidden: [], bwrap: join(base, "no-such-bwrap") },
    });
  const signal = new AbortController().signal;

  it("auto runs the command unsandboxed and says so in the result and the confirmation", async () => {
    const invocation = tool("auto").build({ command: "echo ran" });
    const result = await invocation.run(signal);
    expect(result.sandbox).toBe("off:unavailable");
    expect(result.llmContent).toContain(
      "[sandbox: none: commands run UNSANDBOXED because bubblewrap (bwrap) is not",
    );
    expect(result.llmContent).toContain("ran");
    const details = await invocation.confirmation(signal);
    expect(details === false ? undefined : details.sandbox).toContain("UNSANDBOXED");
  });

  it("an explicitly requested mode fails closed and names the fix", async () => {
    const result = await tool("workspace-write").build({ command: "echo ran" }).run(signal);
    expect(result.error?.type).toBe("execution_failed");
    expect(result.error?.message).toContain('[sandbox] mode = "workspace-write" cannot be had here');
    expect(result.error?.message).toContain("apt-get install bubblewrap");
    expect(result.llmContent).not.toContain("\nran");
  });
});
