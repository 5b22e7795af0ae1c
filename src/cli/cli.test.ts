/**
 * The command line's contract: exit codes, what goes to stdout and stderr, batches, policy checks. Commands run
 * in-process (the dispatcher the binary runs); the kill test spawns the built binary, since signals are about
 * the process (the binary itself is run by version.test.ts and the e2e tests).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess as toolgate } from "../test-support/cli-in-process.js";

const POLICY = `
default = "ask"

[[rules]]
tool = ["read_file", "ls", "glob", "grep"]
decision = "allow"

[[rules]]
tool = "shell"
decision = "deny"
message = "no shell here"
`;

async function project(files: Record<string, string> = {}) {
  return tempWorkspace({ "notes.txt": "alpha\nbeta\n", ".toolgate/policy.toml": POLICY, ...files });
}

/** Errors are one line on stderr, never a stack trace. */
function oneLine(stderr: string) {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("toolgate command", () => {
  it("lists tools sorted by name with --json", async () => {
    const ws = await project();
    const r = await toolgate(["tools", "--json", "--workspace", ws]);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as { name: string; description: string; risk: string }[];
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining(["read_file", "write_file", "edit_file", "shell", "web_fetch", "grep"]),
    );
    expect(Object.keys(tools[0]!)).toEqual(["name", "description", "risk"]);
  });

  it("prints a provider's tools payload, and refuses an unknown provider with exit 2", async () => {
    const ws = await project();
    const r = await toolgate(["schema", "--provider", "anthropic", "--json", "--workspace", ws]);
    expect(r.code).toBe(0);
    const payload = JSON.parse(r.stdout) as { name: string; input_schema: unknown }[];
    expect(payload.find((t) => t.name === "read_file")?.input_schema).toMatchObject({ type: "object" });
    const bad = await toolgate(["schema", "--provider", "mistral", "--workspace", ws]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'toolgate: unknown provider "mistral"; use one of: openai, openai-responses, anthropic, gemini, ollama\n',
    );
  });

  it("reports on stderr what a provider's lowering moved into descriptions", async () => {
    const ws = await project();
    const r = await toolgate(["schema", "--provider", "gemini", "--report", "--json", "--workspace", ws]);
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    expect(r.stderr).toContain(
      "glob /properties/pattern minLength: moved into the description: minLength: 1",
    );
  });

  it("runs an allowed call (exit 0) and prints the result as JSON", async () => {
    const ws = await project();
    const r = await toolgate(["call", "read_file", '{"path":"notes.txt"}', "--json", "--workspace", ws]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["ok", "decision", "llmContent", "returnDisplay", "error"]);
    expect(out).toMatchObject({ ok: true, decision: "allow", error: null });
    expect(out.llmContent).toContain("alpha\nbeta");
  });

  it("denies an ask with no terminal and no --yes (exit 3), and runs it with --yes", async () => {
    const ws = await project();
    const args = ["call", "write_file", '{"path":"new.txt","content":"hi\\n"}', "--workspace", ws];
    const denied = await toolgate(args);
    expect(denied.code).toBe(3);
    // One error line, then how to allow it (src/cli/denial-hint.test.ts pins the hint).
    expect(denied.stderr).not.toMatch(/\n\s+at /);
    expect(denied.stderr).toContain("pass --yes to approve");
    expect(denied.stderr).toMatch(
      /^toolgate: denied_by_policy: write_file was denied: it was not approved: no one was available/,
    );
    expect(existsSync(join(ws, "new.txt"))).toBe(false);
    const approved = await toolgate([...args, "--yes"]);
    expect(approved.code).toBe(0);
    expect(await readFile(join(ws, "new.txt"), "utf8")).toBe("hi\n");
  });

  it("never lets --yes override a deny", async () => {
    const ws = await project();
    const r = await toolgate([
      "call",
      "shell",
      '{"command":"touch pwned"}',
      "--yes",
      "--json",
      "--workspace",
      ws,
    ]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      decision: "deny",
      error: { type: "denied_by_policy", message: "shell was denied: no shell here" },
    });
    expect(existsSync(join(ws, "pwned"))).toBe(false);
  });

  it.each([
    [["call", "nope", "{}"], 'toolgate: tool_not_found: tool not found: "nope"'],
    [["call", "read_file", "{not json"], "toolgate: ARGS_JSON is not valid JSON: "],
    [
      ["call", "read_file", '{"path":1}'],
      "toolgate: invalid_params: invalid arguments for read_file: parameter 'path' must be a string",
    ],
    [["call"], "toolgate: usage: toolgate call TOOL [ARGS_JSON|-]"],
    [["frobnicate"], 'toolgate: unknown command "frobnicate"'],
    [["call", "read_file", "--workspace"], "toolgate: --workspace needs a value"],
  ])("refuses bad input %j with exit 2 and one clear line", async (args, message) => {
    const ws = await project();
    const r = await toolgate([...args, ...(args.includes("--workspace") ? [] : ["--workspace", ws])]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr.startsWith(message)).toBe(true);
  });

  it("exits 1 when the tool ran and reported an error", async () => {
    const ws = await project();
    const r = await toolgate(["call", "read_file", '{"path":"missing.txt"}', "--workspace", ws]);
    expect(r.code).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toContain("file_not_found");
    expect(r.stderr).toContain("missing.txt");
  });

  it("runs a batch from stdin, one result per line, exit code of the worst", async () => {
    const ws = await project();
    const input = [
      '{"name":"read_file","args":{"path":"notes.txt"}}',
      '{"name":"shell","args":{"command":"ls"}}',
      "not json",
      '{"name":"ls","args":{}}',
    ].join("\n");
    const r = await toolgate(["call", "--batch", "-", "--json", "--workspace", ws], { input });
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.ok, l.decision, l.error?.type ?? null])).toEqual([
      [true, "allow", null],
      [false, "deny", "denied_by_policy"],
      [false, null, "invalid_params"],
      [true, "allow", null],
    ]);
    expect(r.code).toBe(2);
  });

  it("prints a batch in text mode as a line per call, errors with their line numbers (issue 30)", async () => {
    const ws = await project({ "two.txt": "a\n" });
    const input = [
      '{"name":"read_file","args":{"path":"notes.txt"}}',
      '{"name":"ls","args":{}}',
      "",
      '{"name":"shell","args":{"command":"ls"}}',
      "not json",
      '{"name":"read_file","args":{"path":"missing.txt"}}',
    ].join("\n");
    const r = await toolgate(["call", "--batch", "-", "--workspace", ws], { input });
    expect(r.stdout).toBe(
      "line 1 read_file: Read notes.txt (2 lines, utf-8, LF)\nline 2 ls: Listed 3 entries in ./\n",
    );
    expect(r.stderr.split("\n").filter((l) => l.startsWith("toolgate:"))).toEqual([
      "toolgate: line 4 shell: denied_by_policy: shell was denied: no shell here",
      `toolgate: line 5: invalid_params: Unexpected token 'o', "not json" is not valid JSON`,
      "toolgate: line 6 read_file: file_not_found: file not found: missing.txt",
    ]);
    expect(r.code).toBe(2);
  });

  it.each([
    ["all succeed", ['{"name":"ls","args":{}}'], 0],
    ["a tool error", ['{"name":"ls","args":{}}', '{"name":"read_file","args":{"path":"missing.txt"}}'], 1],
    [
      "a denial beats a tool error",
      ['{"name":"read_file","args":{"path":"missing.txt"}}', '{"name":"shell","args":{"command":"ls"}}'],
      3,
    ],
    ["bad usage beats a denial", ['{"name":"shell","args":{"command":"ls"}}', '{"name":"no_such_tool"}'], 2],
  ])("a mixed batch exits with its worst call's code: %s", async (_note, lines, code) => {
    const ws = await project();
    const r = await toolgate(["call", "--batch", "-", "--workspace", ws], { input: lines.join("\n") });
    expect(r.code).toBe(code);
  });

  it("checks the policy without executing", async () => {
    const ws = await project();
    const r = await toolgate([
      "policy",
      "check",
      "shell",
      '{"command":"touch x"}',
      "--json",
      "--workspace",
      ws,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      decision: "deny",
      risk: "high",
      rule: "policy.toml#2",
      reason: expect.stringContaining("policy.toml#2"),
    });
    expect(existsSync(join(ws, "x"))).toBe(false);
  });

  it("validates policy files: valid exits 0, invalid exits 2 naming file, rule and problem", async () => {
    const ws = await project({
      "good.toml": POLICY,
      "unknown-key.toml": '[[rules]]\ntool = "ls"\ndecision = "allow"\ncolour = "red"\n',
      "redos.toml": '[[rules]]\ntool = "grep"\ndecision = "allow"\nwhen.pattern = { regex = "(a+)+$" }\n',
      "bad-decision.toml": '[[rules]]\ntool = "ls"\ndecision = "maybe"\n',
    });
    const good = await toolgate(["policy", "validate", "good.toml"], { cwd: ws });
    expect(good.code).toBe(0);
    expect(good.stdout).toContain("valid (2 rules, default ask)");
    for (const [file, problem] of [
      ["unknown-key.toml", /unknown-key\.toml.*colour/],
      ["redos.toml", /redos\.toml.*(backtracking|unsafe)/i],
      ["bad-decision.toml", /bad-decision\.toml.*maybe/],
    ] as const) {
      const r = await toolgate(["policy", "validate", file], { cwd: ws });
      expect(r.code, file).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(problem);
    }
  });

  it("stops every call when the workspace policy is broken (exit 2, nothing runs)", async () => {
    const ws = await project({
      ".toolgate/policy.toml":
        '[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { glob = 3 }\n',
    });
    const r = await toolgate([
      "call",
      "write_file",
      '{"path":"a.txt","content":"x"}',
      "--yes",
      "--workspace",
      ws,
    ]);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain("policy.toml");
    expect(existsSync(join(ws, "a.txt"))).toBe(false);
  });

  it("writes an audit record per call when configured", async () => {
    const ws = await project({ ".toolgate/config.toml": '[audit]\nfile = ".toolgate/audit.jsonl"\n' });
    await toolgate(["call", "read_file", '{"path":"notes.txt"}', "--workspace", ws]);
    await toolgate(["call", "shell", '{"command":"ls"}', "--workspace", ws]);
    const records = (await readFile(join(ws, ".toolgate/audit.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records.map((r) => [r.tool, r.decision, r.rule, r.outcome])).toEqual([
      ["read_file", "allow", "policy.toml#1", "ok"],
      ["shell", "deny", "policy.toml#2", "denied_by_policy"],
    ]);
    expect(Object.keys(records[0]).sort()).toEqual([
      "argsDigest",
      "decision",
      "digest",
      "durationMs",
      "explain",
      "hash",
      "label",
      "outcome",
      "prev",
      "risk",
      "rule",
      "seq",
      "time",
      "tool",
    ]);
    // The label says levels and tools, never a path, URL or excerpt (issue 31).
    expect(JSON.stringify(records[0].label)).not.toContain("notes.txt");
  });

  it("runs the planner on a model response", async () => {
    const ws = await project();
    const r = await toolgate(
      [
        "plan",
        "--query",
        "总结https://example.com的内容",
        "--response-file",
        "-",
        "--json",
        "--workspace",
        ws,
      ],
      { input: "<think>maybe web_fetch</think>I will use web_fetch to read it." },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      method: "text",
      calls: [{ name: "web_fetch", args: { url: "https://example.com" } }],
    });
  });

  it("a kill (SIGTERM) cancels the running call and stops its commands before toolgate exits", {
    timeout: 180_000,
  }, async () => {
    const ws = await tempWorkspace(); // the built-in default: shell asks, --yes approves
    const marker = `tg-kill-${process.pid}-${Date.now()}`;
    const child = spawn(
      process.execPath,
      [
        BIN,
        "call",
        "shell",
        // A sleep far longer than the test (its argument marks it as this test's): it ends only by the kill.
        JSON.stringify({ command: `sleep 900.${process.pid}; touch ${marker}` }),
        "--yes",
        "--workspace",
        ws,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const sleeping = () =>
      readdirSync("/proc")
        .filter((d) => /^\d+$/.test(d))
        .some((pid) => {
          try {
            return (
              readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\u0000900.${process.pid}\u0000` &&
              !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")
            );
          } catch {
            return false;
          }
        });
    // The command runs once its sleep shows (toolgate's signal handlers are set before it starts commands).
    // A loaded machine may take long to get there: wait for that state, or for toolgate ending without it.
    let ended = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => {
        ended = true;
        resolve(code);
      }),
    );
    try {
      while (!sleeping() && !ended) await new Promise((r) => setTimeout(r, 100));
      expect({ sleeping: sleeping(), stderr }).toMatchObject({ sleeping: true });
      child.kill("SIGTERM");
      const code = await exited;
      expect({ code, stderr }).toMatchObject({ code: 1 });
      expect(stderr).toContain("cancelled");
      expect(sleeping()).toBe(false);
      expect(existsSync(join(ws, marker))).toBe(false);
    } finally {
      // A failed test leaves no toolgate (nor, through bwrap's --die-with-parent, its sleep) behind.
      if (!ended) child.kill("SIGKILL");
    }
  });

  it("shows a failed command's output before its error line (exit 1)", async () => {
    const ws = await tempWorkspace();
    const r = await toolgate([
      "call",
      "shell",
      '{"command":"echo hi; echo err >&2; exit 3"}',
      "--yes",
      "--workspace",
      ws,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("hi\n[stderr]\nerr\n[command exited with code 3]\n");
    expect(r.stderr).toBe("toolgate: execution_failed: command exited with code 3\n");
  });
});
