import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, defineTool, okResult } from "./core/index.js";
import { builtinDefaultPolicy } from "./policy/index.js";
import { tempWorkspace } from "./test-support/cli.js";
import { createToolgate, policyPlugins } from "./toolgate.js";
import { DEFAULT_READ_ASK_PATTERNS, Workspace } from "./workspace/index.js";

const quiet = { warn: () => undefined };

describe("createToolgate", () => {
  it("refuses a root that does not exist, and bad settings, at creation", async () => {
    await expect(
      createToolgate({ roots: ["/nonexistent/toolgate-root"], logger: quiet }),
    ).rejects.toThrowError("workspace root /nonexistent/toolgate-root does not exist");
    const ws = await tempWorkspace({ ".toolgate/config.toml": "[web]\nallow_host = []\n" });
    await expect(createToolgate({ roots: [ws], logger: quiet })).rejects.toBeInstanceOf(ConfigError);
  });

  it("uses the workspace's .toolgate/policy.toml when present, else the built-in default", async () => {
    const withFile = await tempWorkspace({ ".toolgate/policy.toml": 'default = "deny"\n' });
    const gate = await createToolgate({ roots: [withFile], logger: quiet });
    expect(gate.policy.source).toBe(join(withFile, ".toolgate/policy.toml"));
    expect((await gate.execute({ name: "ls", args: {} })).decision).toBe("deny");
    const bare = await tempWorkspace();
    const builtin = await createToolgate({ roots: [bare], logger: quiet });
    expect(builtin.policy.source).toBe("builtin");
    expect((await builtin.execute({ name: "ls", args: {} })).decision).toBe("allow");
  });

  it("asks before reading files that may hold secrets under the built-in default", async () => {
    const ws = await tempWorkspace({ ".env": "TOKEN=1\n", "README.md": "hi\n", "keys/id_rsa": "k\n" });
    const gate = await createToolgate({ roots: [ws], logger: quiet });
    const decide = async (name: string, args: unknown) => {
      const r = await gate.check({ name, args });
      return r.ok ? r.decision.decision : r.error.type;
    };
    expect(await decide("read_file", { path: "README.md" })).toBe("allow");
    expect(await decide("read_file", { path: ".env" })).toBe("ask");
    expect(await decide("read_file", { path: "keys/id_rsa" })).toBe("ask");
    expect(await decide("read_file", { path: "./keys/../.env" })).toBe("ask");
    expect(await decide("read_many_files", { paths: ["README.md", ".env"] })).toBe("ask");
    expect(await decide("read_many_files", { paths: ["README.md"] })).toBe("allow");
    expect(await decide("grep", { pattern: "TOKEN", path: ".env" })).toBe("ask");
    // Unanswered, the ask is a deny: the secret is not read.
    const r = await gate.execute({ name: "read_file", args: { path: ".env" } });
    expect(r.error?.type).toBe("denied_by_policy");
    expect(r.llmContent).not.toContain("TOKEN=1");
  });

  it("builds the built-in default without the file tools (the sensitive-read rules need them)", async () => {
    const ws = await tempWorkspace();
    const gate = await createToolgate({ roots: [ws], logger: quiet, builtins: false, policy: false });
    expect(gate.registry.size).toBe(0);
    expect(gate.policy.rules.map((r) => r.ref.id)).toEqual(["builtin#read-only"]);
    const full = await createToolgate({ roots: [ws], logger: quiet, policy: false });
    expect(full.policy.rules.map((r) => r.ref.id)).toEqual([
      "builtin#read-only",
      "builtin#sensitive-read",
      "builtin#sensitive-read-many",
      "builtin#sensitive-grep",
    ]);
  });

  it("registers host tools through the same pipeline and refuses rules that do not fit them", async () => {
    const ws = await tempWorkspace();
    const gate = await createToolgate({
      roots: [ws],
      logger: quiet,
      policyText: '[[rules]]\ntool = "greet"\ndecision = "allow"\nwhen.name = { host = "example.com" }\n',
      builtins: ["read_file"],
    });
    expect(gate.registry.names()).toEqual(["read_file"]);
    const greet = defineTool<{ name: string }>({
      name: "greet",
      description: "Greets",
      kind: "other",
      risk: "low",
      argKinds: { name: "path" },
      parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      run: async ({ name }) => okResult(`hello ${name}`),
    });
    expect(() => gate.register(greet)).toThrowError(ConfigError);
  });

  it("stops background processes on close", async () => {
    const ws = await tempWorkspace();
    const gate = await createToolgate({ roots: [ws], logger: quiet, policy: false });
    gate.bus.onConfirmation(() => ({ approved: true }));
    const started = await gate.execute({
      name: "shell",
      args: { command: "sleep 30; touch late.txt", background: true },
    });
    expect(started.ok).toBe(true);
    const list = await gate.execute({ name: "shell_processes", args: { action: "list" } });
    expect(list.llmContent).toContain("sleep 30");
    await gate.close();
    const after = await readFile("/proc/loadavg", "utf8"); // just a read to let signals land
    expect(after.length).toBeGreaterThan(0);
    expect(existsSync(join(ws, "late.txt"))).toBe(false);
    const again = await gate.execute({ name: "shell_processes", args: { action: "list" } });
    expect(again.llmContent).not.toMatch(/running/);
  });

  it("builds the built-in default policy whose examples all hold, as the gate uses it (it skips them at start-up)", async () => {
    const ws = await tempWorkspace();
    const gate = await createToolgate({ roots: [ws], logger: quiet, policy: false });
    try {
      // The gate's own policy came from the same rules without the example checks.
      expect(gate.policy.source).toBe("builtin");
      const workspace = await Workspace.create(gate.roots);
      const checked = await builtinDefaultPolicy({
        plugins: policyPlugins(workspace),
        roots: gate.roots,
        tools: gate.registry.list(),
        sensitiveFiles: DEFAULT_READ_ASK_PATTERNS,
      });
      expect(checked.rules.map((r) => r.ref.id)).toEqual(gate.policy.rules.map((r) => r.ref.id));
      expect(checked.rules.some((r) => r.ref.id.includes("sensitive"))).toBe(true);
    } finally {
      await gate.close();
    }
  });
});
